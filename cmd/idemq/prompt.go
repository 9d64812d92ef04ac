package main

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// confirm asks question on out and reads the answer from in: only y or
// yes (any case) is a yes; anything else, an empty line or the end of
// the input is a no. With --yes it asks nothing.
func confirm(s *settings, in io.Reader, out io.Writer, question string) bool {
	if s.yes {
		return true
	}
	fmt.Fprintf(out, "%s [y/N] ", question)
	line, _ := bufio.NewReader(in).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true
	}
	return false
}
