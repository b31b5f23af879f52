print("capforge")
