import base64
image = base64.b64decode(data)
