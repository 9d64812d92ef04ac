package idemqcdk_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/idemq/idemq/infra/idemqcdk"
)

// Settings that cannot be deployed are refused before anything is made,
// naming the field to change: here, the required key namespace. In a CDK
// app, NewWorker(stack, "Worker", &props) panics with the same error.
func ExampleWorkerProps_Check() {
	props := idemqcdk.WorkerProps{
		ProviderURL: "https://api.openai.com/v1",
		Timeout:     30 * time.Second,
	}
	var bad *idemqcdk.SettingError
	err := props.Check()
	fmt.Println(errors.As(err, &bad), bad.Field)
	// Output: true Request.Namespace
}
