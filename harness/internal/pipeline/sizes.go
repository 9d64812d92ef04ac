package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/idemq/idemq/harness/internal/loadtest"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/s3blob"
	"github.com/idemq/idemq/internal/storekit"
)

// MixedSizes are the answers of the mixed run: 1 KB to 2 MiB.
var MixedSizes = Sizes{Min: 1 << 10, Max: 2 << 20}

// Mixed is `make pipeline-mixed`'s run: Full's standard queue and
// faults, fewer keys, answers of MixedSizes, and the workers offloading
// results to a bucket on the local S3 server (Parts.S3).
func Mixed(seed uint64) Config {
	c := Full(seed)
	c.Requests, c.Poison = 300, 2
	c.Answers, c.Blobs = MixedSizes, true
	return c
}

// SmallMixed is the mixed-size run inside `go test ./...`.
func SmallMixed(seed uint64) Config {
	c := Small(seed)
	c.Requests, c.Poison, c.Instances = 40, 0, 3 // no keyless message: it would take 6 receives to reach the DLQ
	c.Answers, c.Blobs = MixedSizes, true
	return c
}

// size is the answer size of key within s.
func (s Sizes) size(key string) int {
	u := float64(hash64("size/"+key)) / math.MaxUint64
	n := int(math.Round(float64(s.Min) * math.Pow(float64(s.Max)/float64(s.Min), u)))
	return min(max(n, s.Min), s.Max)
}

// hash64 is the first 8 bytes of s's SHA-256: every bit of it moves with
// every byte of s (FNV's high bits barely move with its last byte, and
// keys differ at the end).
func hash64(s string) uint64 {
	sum := sha256.Sum256([]byte(s))
	return binary.BigEndian.Uint64(sum[:8])
}

// opticks is Newton's Opticks as Go ships it
// ($GOROOT/src/testdata/Isaac.Newton-Opticks.txt).
var opticks = sync.OnceValues(func() (string, error) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return "", fmt.Errorf("pipeline: go env GOROOT: %w", err)
	}
	b, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "src", "testdata", "Isaac.Newton-Opticks.txt"))
	if err != nil {
		return "", fmt.Errorf("pipeline: the prose of the answers: %w", err)
	}
	return string(b), nil
})

// contentFunc returns the provider's completion text for the run's keys:
// loadtest.DefaultContent, then prose up to the key's size.
func (r *runner) contentFunc() (func(n int, prompt string) string, error) {
	text, err := opticks()
	if err != nil {
		return nil, err
	}
	return func(n int, prompt string) string {
		head := loadtest.DefaultContent(n, prompt) + "\n\n"
		key := r.keyOf[prompt]
		want := r.cfg.Answers.size(key) - len(head)
		var b strings.Builder
		b.Grow(len(head) + max(want, 0))
		b.WriteString(head)
		for off := int(hash64("offset/"+key) % uint64(len(text))); want > 0; off = 0 {
			part := text[off:min(len(text), off+want)]
			b.WriteString(part)
			want -= len(part)
		}
		return b.String()
	}, nil
}

// startBlobs makes the run's bucket on Parts.S3; the workers get it by
// blobEnv.
func (r *runner) startBlobs(ctx context.Context) error {
	if r.parts.S3 == "" {
		return errors.New("pipeline: no S3 endpoint for the result bucket (IDEMQ_TEST_S3_ENDPOINT): run under scripts/with-s3.sh")
	}
	client := s3.New(s3.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(r.parts.S3), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider("idemqlocal", "idemqlocal", ""),
	})
	bucket := "idemq-pipeline-" + r.suffix
	if _, err := client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		return fmt.Errorf("pipeline: create the result bucket on %s: %w", r.parts.S3, err)
	}
	blobs, err := s3blob.New(client, bucket, blobPrefix)
	if err != nil {
		return err
	}
	r.blob = &blobRun{client: client, bucket: bucket, blobs: blobs}
	r.cleanups = append(r.cleanups, func() { r.blob.empty(context.Background()) })
	return nil
}

// blobEnv is the workers' environment for the bucket, nil without one.
func (r *runner) blobEnv() []string {
	if r.blob == nil {
		return nil
	}
	return []string{"IDEMQ_BLOB_BUCKET=" + r.blob.bucket, "IDEMQ_BLOB_PREFIX=" + blobPrefix, "IDEMQ_S3_ENDPOINT=" + r.parts.S3}
}

// replayedValue reads key's completed result as a duplicate would: Do,
// with the workers' blob store, must replay it without running anything.
func (r *runner) replayedValue(ctx context.Context, key idem.Key, rec idem.Record, ar *AnswerReport) ([]byte, error) {
	switch {
	case rec.Encoding == storekit.EncodingBlob:
		ar.Offloaded++
	default:
		ar.Inline++
		ar.InlineBytes += len(rec.Result)
	}
	var opts []idem.Option
	if r.blob != nil {
		opts = append(opts, idem.WithBlobs(r.blob.blobs))
	}
	res, err := idem.Do(ctx, r.store.records, key, "", func(context.Context) ([]byte, error) {
		return nil, errors.New("pipeline: the check's duplicate ran the work")
	}, opts...)
	switch {
	case err != nil:
		return nil, err
	case res.Outcome != idem.Replayed || res.Omitted:
		return nil, fmt.Errorf("the check's duplicate got %v (omitted %v), not a replay of the result", res.Outcome, res.Omitted)
	}
	return res.Value, nil
}

// checkAnswers adds what the workers and the bucket say to ar, and a
// violation for each replay a worker logged as failed: a duplicate whose
// result could not be read (missing, longer than its pointer, not its
// checksum) went back to the queue instead of getting it.
func (r *runner) checkAnswers(ctx context.Context, rep *Report, ar *AnswerReport) error {
	for _, in := range r.instances {
		for _, line := range replayFailures(in.Logs()) {
			ar.WorkerReplayFailures++
			if ar.WorkerReplayFailures <= 5 {
				rep.violate("%s: a duplicate's replay failed: %s", in.name, line)
			}
		}
	}
	if ar.WorkerReplayFailures > 5 {
		rep.violate("%d duplicates' replays failed in all", ar.WorkerReplayFailures)
	}
	ar.WorkerReplayedRecords = rep.Worker.Replayed
	if r.blob != nil {
		var err error
		if ar.Objects, ar.ObjectBytes, err = r.blob.objects(ctx); err != nil {
			return err
		}
	}
	if ar.Checked == 0 {
		rep.violate("no completed key's result was checked")
	}
	return nil
}

// replayFailures returns the lines of a worker's output that report a
// record sent back because its replay failed (the handler's "idemq: record
// comes back", for an idem.Error of op "replay").
func replayFailures(out string) []string {
	var lines []string
	for line := range strings.Lines(out) {
		if strings.Contains(line, `"idemq: record comes back"`) && strings.Contains(line, "idem: replay key") {
			lines = append(lines, strings.TrimSpace(line))
		}
	}
	return lines
}

// add counts a checked result (the worker's completion JSON).
func (ar *AnswerReport) add(value []byte) {
	var c struct {
		Content string `json:"content"`
	}
	_ = json.Unmarshal(value, &c)
	n := len(c.Content)
	if ar.Checked == 0 || n < ar.Smallest {
		ar.Smallest = n
	}
	ar.Largest = max(ar.Largest, n)
	ar.Checked++
	ar.AnswerBytes += int64(n)
}
