package idemqenv

import (
	"errors"
	"strconv"
	"time"
)

// secondsValue is durationValue for a setting SQS counts in whole
// seconds (a visibility timeout): a bare whole number is seconds ("60"),
// as SQS writes it; a Go duration works too ("1m").
func secondsValue(field func(*Settings) *time.Duration) value {
	v := durationValue(field)
	parse := v.parse
	v.parse = func(s *Settings, text string) error {
		if n, err := strconv.ParseUint(text, 10, 31); err == nil {
			text = strconv.FormatUint(n, 10) + "s"
		} else if _, err := time.ParseDuration(text); err != nil {
			return errors.New("not whole seconds (like 60) nor a Go duration (like 1m)")
		}
		return parse(s, text)
	}
	return v
}
