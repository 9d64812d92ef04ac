package request

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/aws/aws-lambda-go/lambdacontext"

	"github.com/idemq/idemq/idem"
)

// DefaultNamespace is the namespace of an Identity that sets none, in the
// parts that run in the function that claims its requests (the handler,
// the dispatcher): the Lambda function's name
// (lambdacontext.FunctionName); outside Lambda, where that is empty, the
// program's name (its executable's base name, Windows' ".exe" dropped),
// with fromProgram true: the part warns, as a program's name is kept by
// no deployment. Where neither names one it returns an *idem.ConfigError
// for Namespace. The parts that run apart from that function (the front
// door, the command, NewFunc's wrapped function) have no name to default
// to, and require the namespace; the producer needs one only for
// Sent.RecordKey.
func DefaultNamespace() (ns string, fromProgram bool, err error) {
	if ns := lambdacontext.FunctionName; ns != "" {
		return ns, false, nil
	}
	if len(os.Args) > 0 {
		ns = strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe")
	}
	if ns == "" || ns == "." || ns == string(filepath.Separator) {
		return "", false, configError("Namespace", `""`, errors.New("must be set: AWS_LAMBDA_FUNCTION_NAME is unset and the program has no name"))
	}
	ns = strings.ToValidUTF8(ns, "")
	if err := idem.CheckValue(ns); err != nil {
		return "", false, configError("Namespace", `""`, fmt.Errorf("must be set: AWS_LAMBDA_FUNCTION_NAME is unset and the program's name %q breaks the key rule: %w", ns, err))
	}
	return ns, true, nil
}
