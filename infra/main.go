// Command infra is the CDK app cdk.json runs: the idemq worker's stack,
// configured by the idemq:* context keys. See idemqcdk.NewStack.
package main

import (
	"fmt"
	"os"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"

	"github.com/idemq/idemq/infra/idemqcdk"
)

// moduleDir is the repository's root, which holds lambda/ (a module of its
// own, built from the working tree through go.work): cdk.json builds this
// app into bin/ and runs it from the repository root.
const moduleDir = "."

func main() {
	if err := synth(); err != nil {
		// No jsii.Close here: after a failed CDK call it trips over the
		// runtime's unread output and prints a node stack trace. Exiting
		// ends the runtime as well.
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	jsii.Close()
}

// synth writes the stack's cloud assembly where the CLI asks.
func synth() (err error) {
	// A CDK call that fails panics: report it as an error, not a Go
	// stack trace.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	app := awscdk.NewApp(nil)
	if _, err := idemqcdk.NewStack(app, jsii.String("Idemq"), &idemqcdk.StackProps{ModuleDir: moduleDir}); err != nil {
		return err
	}
	app.Synth(nil)
	return nil
}
