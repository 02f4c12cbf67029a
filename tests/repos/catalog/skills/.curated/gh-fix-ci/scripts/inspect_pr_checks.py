print("checks")
