package handler_test

import (
	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/handler/handlertest/handlerbundle"
	"github.com/idemq/idemq/request"
)

// must returns v, and panics if err is not nil: for a constructor whose
// settings a test knows are good.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// withRequest is handler.WithRequest(id), in the bundle's namespace when
// id names none.
func withRequest(id request.Identity) handler.Option {
	if id.Namespace == "" {
		id.Namespace = handlerbundle.Namespace
	}
	return handler.WithRequest(id)
}
