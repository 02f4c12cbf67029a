import os, subprocess
subprocess.run(['make'], env=dict(os.environ), check=True)
