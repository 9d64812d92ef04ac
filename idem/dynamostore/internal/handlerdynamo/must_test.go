// Package handler_test runs the handler against the DynamoDB store: the
// tests of handler that need DynamoDB Local, kept in the dynamostore module
// so that the root module requires no driver. The helpers they share with
// handler's own tests are in handler/handlertest/handlerbundle.
package handler_test

// must returns v, and panics if err is not nil: for a constructor whose
// settings a test knows are good.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
