package idemqcdk

// SettingError reports a WorkerProps value that cannot be deployed. Its
// message says what to change.
type SettingError struct {
	// Field is the WorkerProps field holding the value, e.g.
	// "VisibilityTimeout".
	Field string
	// Msg says what is wrong and which value to change.
	Msg string
	// Err is the cause, if any: for RecordExpiry, queue.CheckExpiry's error,
	// which wraps queue.ErrInvalidSettings.
	Err error
}

func (e *SettingError) Error() string {
	if e.Err != nil {
		return "idemqcdk: " + e.Msg + ": " + e.Err.Error()
	}
	return "idemqcdk: " + e.Msg
}

func (e *SettingError) Unwrap() error { return e.Err }
