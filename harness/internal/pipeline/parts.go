package pipeline

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/idemq/idemq/internal/rie"
)

// Parts are the servers and programs a run uses.
type Parts struct {
	DynamoDB  string // DynamoDB Local's endpoint
	Postgres  string // the PostgreSQL server's URL (runs on Postgres)
	Redis     string // the Redis server's URL (runs on Redis)
	SQS       string // the SQS server's endpoint (StartSQS)
	S3        string // the S3 server's endpoint, for the result bucket (runs with Config.Blobs)
	RIE       string // path of aws-lambda-rie
	Bootstrap string // path of the reference worker built for this machine (BuildBootstrap)
}

// FindRIE returns the path of bin/aws-lambda-rie under root, or an error
// with a hint.
func FindRIE(root string) (string, error) {
	return rie.Find(filepath.Join(root, rie.BinPath))
}

// BuildBootstrap builds the reference worker (lambda/) for this machine
// into dir/bootstrap, as Lambda's provided.al2023 runtime runs it.
func BuildBootstrap(ctx context.Context, root, dir string) (string, error) {
	out := filepath.Join(dir, "bootstrap")
	cmd := exec.CommandContext(ctx, "go", "build", "-tags", "lambda.norpc", "-o", out, "./lambda")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("pipeline: build the worker (go build ./lambda): %w\n%s", err, msg)
	}
	return out, nil
}
