import sys

# open the page and compare its title
print("title ok")
sys.exit(0)
