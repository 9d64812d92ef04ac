package handler_test

// must returns v, and panics if err is not nil: for a constructor whose
// settings a test knows are good.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
