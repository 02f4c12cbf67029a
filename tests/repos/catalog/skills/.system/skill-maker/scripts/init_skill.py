print("init")
