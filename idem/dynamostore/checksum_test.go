package dynamostore_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/logging"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/dynamostore"
	"github.com/idemq/idemq/idem/dynamostore/dynamotest"
	"github.com/idemq/idemq/internal/storekit"
)

// sdkLog is a client logger that keeps what the SDK logs.
type sdkLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *sdkLog) Logf(c logging.Classification, format string, v ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, string(c)+" "+fmt.Sprintf(format, v...))
}

// checksumWarnings returns the lines that warn of a checksum.
func (l *sdkLog) checksumWarnings() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, line := range l.lines {
		if strings.Contains(line, "checksum") {
			out = append(out, line)
		}
	}
	return out
}

// loggingClient is a client of endpoint that logs into a new sdkLog, as a
// client of config.LoadDefaultConfig logs to standard error.
func loggingClient(endpoint string) (*dynamodb.Client, *sdkLog) {
	log := &sdkLog{}
	return dynamodb.New(dynamodb.Options{
		Region:           dynamotest.Region,
		BaseEndpoint:     aws.String(endpoint),
		Credentials:      credentials.NewStaticCredentialsProvider("idemqlocal", "idemqlocal", ""),
		Logger:           log,
		RetryMaxAttempts: 1,
	}), log
}

// An error answer without X-Amz-Crc32, as DynamoDB Local sends, logs no
// checksum warning; an answer whose checksum is wrong still does, error or
// not.
func TestErrorAnswerWithoutChecksum(t *testing.T) {
	t.Parallel()
	const missingTable = `{"__type":"com.amazonaws.dynamodb.v20120810#ResourceNotFoundException","message":"Cannot do operations on a non-existent table"}`
	for _, tc := range []struct {
		name     string
		status   int
		checksum string // X-Amz-Crc32, "" for none
		body     string
		warn     bool
	}{
		{"an error answer without a checksum", http.StatusBadRequest, "", missingTable, false},
		{"an error answer with a wrong checksum", http.StatusBadRequest, "1", missingTable, true},
		{"a successful answer with a wrong checksum", http.StatusOK, "1", `{}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/x-amz-json-1.0")
				if tc.checksum != "" {
					w.Header().Set("X-Amz-Crc32", tc.checksum)
				}
				w.WriteHeader(tc.status)
				_, _ = w.Write([]byte(tc.body))
			}))
			defer server.Close()
			client, log := loggingClient(server.URL)
			store := must(dynamostore.New(client, "idempotency"))
			_, _, err := store.Get(context.Background(), "summarise#request-1")
			if (tc.status != http.StatusOK) != (err != nil) {
				t.Fatalf("Get: %v", err)
			}
			if warned := len(log.checksumWarnings()) > 0; warned != tc.warn {
				t.Errorf("checksum warned %v, want %v: %q", warned, tc.warn, log.lines)
			}
		})
	}
}

// On DynamoDB Local a duplicate's claim (a failed condition) and a read of
// a missing table log no checksum warning through a client with a logger.
func TestNoChecksumWarningOnDynamoDBLocal(t *testing.T) {
	t.Parallel()
	table := dynamotest.NewTable(t, dynamotest.Client(t))
	client, log := loggingClient(os.Getenv(dynamotest.EndpointEnv))
	store := must(dynamostore.New(client, table))
	now := time.Now()
	for i := range 2 {
		c, err := store.Claim(context.Background(), idem.ClaimRequest{
			Key: "summarise#request-1", Owner: storekit.NewOwner(), Now: now, LeaseUntil: now.Add(time.Minute), ExpiresAt: now.Add(time.Hour),
		})
		if err != nil || c.Claimed != (i == 0) {
			t.Fatalf("claim %d: %+v, %v", i, c, err)
		}
	}
	missing := must(dynamostore.New(client, table+"-missing"))
	if _, _, err := missing.Get(context.Background(), "summarise#request-1"); err == nil {
		t.Fatal("Get on a missing table: no error")
	}
	if w := log.checksumWarnings(); len(w) > 0 {
		t.Errorf("the SDK warned: %q", w)
	}
}
