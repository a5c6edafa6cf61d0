package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// isTerminal reports whether f is an interactive terminal.
func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// promptPassword asks for a password twice on the terminal f, without echo.
func promptPassword(f *os.File, prompt io.Writer) (string, error) {
	fd := int(f.Fd())
	old, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return "", err
	}
	quiet := *old
	quiet.Lflag &^= unix.ECHO
	quiet.Lflag |= unix.ICANON | unix.ISIG
	if err := unix.IoctlSetTermios(fd, unix.TCSETS, &quiet); err != nil {
		return "", err
	}
	defer func() { _ = unix.IoctlSetTermios(fd, unix.TCSETS, old) }()
	r := bufio.NewReader(io.LimitReader(f, 8192))
	read := func(label string) (string, error) {
		fmt.Fprint(prompt, label)
		line, err := r.ReadString('\n')
		fmt.Fprintln(prompt)
		if err != nil && err != io.EOF {
			return "", err
		}
		return strings.TrimRight(line, "\r\n"), nil
	}
	pw, err := read("Password: ")
	if err != nil {
		return "", err
	}
	again, err := read("Password again: ")
	if err != nil {
		return "", err
	}
	if pw != again {
		return "", usageError{"the two passwords differ"}
	}
	return pw, nil
}
