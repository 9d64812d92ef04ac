package queue

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

// CheckText returns an error when SQS does not take s as a message body,
// or as the value of a String or Number message attribute: s is empty, is
// not UTF-8, or holds a character outside those SQS's API allows (tab,
// line feed, carriage return, U+0020–U+D7FF, U+E000–U+FFFD and
// U+10000–U+10FFFF: XML's characters). SQS answers such a message with
// InvalidMessageContents. The error names the first such character and
// its byte offset.
func CheckText(s string) error {
	if s == "" {
		return errors.New("it is empty")
	}
	for i, r := range s {
		switch {
		case r == utf8.RuneError && runeLen(s[i:]) == 1:
			return fmt.Errorf("it is not UTF-8 text (byte %#x at byte %d)", s[i], i)
		case r == '\t', r == '\n', r == '\r':
		case r < 0x20, 0xD800 <= r && r < 0xE000, r == 0xFFFE, r == 0xFFFF:
			return fmt.Errorf("it holds %U at byte %d, a character SQS does not take", r, i)
		}
	}
	return nil
}

// runeLen is the length of the rune s starts with, 1 for a byte that
// starts none.
func runeLen(s string) int {
	_, n := utf8.DecodeRuneInString(s)
	return n
}
