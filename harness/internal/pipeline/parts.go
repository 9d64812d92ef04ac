package pipeline

import (
	"context"
	"fmt"
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

// BuildBootstrap returns the reference worker (lambda/) for this machine
// as Lambda's provided.al2023 runtime runs it: the one a whole test run
// shares when rie.BootstrapEnv names it (make test builds it once), else
// one built into dir/bootstrap (rie.BuildBootstrap).
func BuildBootstrap(ctx context.Context, root, dir string) (string, error) {
	path, err := rie.Bootstrap(ctx, root, dir)
	if err != nil {
		return "", fmt.Errorf("pipeline: %w", err)
	}
	return path, nil
}
