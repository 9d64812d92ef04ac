package deploylocal

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	dynamotypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/idemq/idemq/harness/internal/loadtest"
)

// LargeResult is what became of the large request (LargeKey): where the
// deployed worker put its result, what its record holds, and how a late
// duplicate was answered.
type LargeResult struct {
	// Bucket and Object are the S3 object holding the result: the
	// deployed bucket, under the function's IDEMQ_BLOB_PREFIX.
	Bucket, Object string
	// Size and SHA256 are the object's, as its record's pointer gives
	// them and as read back; Encoding is the pointer's encoding of the
	// bytes (gzip).
	Size     int
	SHA256   string
	Encoding string
	// ResultBytes is the result the worker returned: the object decoded,
	// the completion as JSON, holding the provider's whole answer.
	ResultBytes int
	// PointerBytes is the size of the record's result attribute: the
	// pointer, all the record keeps of the result.
	PointerBytes int
	// LateDuplicate is the local event source mapping's count for a copy
	// of LargeKey sent after the first copies were all done.
	LateDuplicate loadtest.Stats
	// ReplayGets and ReplayGetBytes count the late duplicate's successful
	// GETs of the object and the bytes they returned.
	ReplayGets, ReplayGetBytes int
}

func (l *LargeResult) String() string {
	return fmt.Sprintf("large result %s: s3://%s/%s, %d bytes (%s of a %d-byte result), sha256 %s; the record keeps a %d-byte pointer; "+
		"a late duplicate: %d delivered, %d acknowledged, %d GET of the object (%d bytes)",
		LargeKey, l.Bucket, l.Object, l.Size, l.Encoding, l.ResultBytes, l.SHA256, l.PointerBytes,
		l.LateDuplicate.TotalDeliveries(), l.LateDuplicate.Deleted, l.ReplayGets, l.ReplayGetBytes)
}

// pointer is a record's result when it is in the bucket (idem's blob
// pointer, EncodingBlob): read here as the table holds it, not through
// idem, so that a change of its form shows.
type pointer struct {
	Name     string `json:"name"`
	Size     int    `json:"size"`
	SHA256   string `json:"sha256"`
	Encoding string `json:"encoding"`
}

// checkLarge finds the large request's result where the deployed worker
// must have put it: the table holds one record in encoding "blob", the
// large key's, whose pointer names the one object under IDEMQ_BLOB_PREFIX
// in the deployed bucket, of the pointer's size and SHA-256, which
// decodes to the completion holding answer whole.
func checkLarge(ctx context.Context, c clients, endpoint string, d *deployed, answer string) (*LargeResult, error) {
	l := &LargeResult{Bucket: d.bucket}
	prefix := d.env["IDEMQ_BLOB_PREFIX"]
	var ptrRaw []byte
	var blobIDs []string
	items := dynamodb.NewScanPaginator(c.dynamo, &dynamodb.ScanInput{TableName: aws.String(d.table)})
	for items.HasMorePages() {
		page, err := items.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("deploylocal: scan the table: %w", err)
		}
		for _, item := range page.Items {
			enc, _ := item["data_encoding"].(*dynamotypes.AttributeValueMemberS)
			if enc == nil || enc.Value != "blob" {
				continue
			}
			id, _ := item["id"].(*dynamotypes.AttributeValueMemberS)
			data, _ := item["data"].(*dynamotypes.AttributeValueMemberB)
			if id == nil || data == nil {
				return nil, fmt.Errorf("deploylocal: a record in encoding blob without its id or data: %v", item)
			}
			blobIDs = append(blobIDs, id.Value)
			ptrRaw = data.Value
		}
	}
	if len(blobIDs) != 1 || !strings.HasSuffix(blobIDs[0], LargeKey) {
		return nil, fmt.Errorf("deploylocal: records whose result is in the bucket: %q, want the one of %s", blobIDs, LargeKey)
	}
	var p pointer
	if err := json.Unmarshal(ptrRaw, &p); err != nil || p.Name == "" || p.Size == 0 || p.SHA256 == "" {
		return nil, fmt.Errorf("deploylocal: the record of %s holds %q, not a pointer to its result: %v", LargeKey, ptrRaw, err)
	}
	l.Object, l.Size, l.SHA256, l.Encoding, l.PointerBytes = prefix+p.Name, p.Size, p.SHA256, p.Encoding, len(ptrRaw)

	s3c := newS3Client(endpoint)
	listed, err := s3c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(d.bucket)})
	if err != nil {
		return nil, fmt.Errorf("deploylocal: list the result bucket: %w", err)
	}
	var keys []string
	for _, o := range listed.Contents {
		keys = append(keys, fmt.Sprintf("%s (%d bytes)", aws.ToString(o.Key), aws.ToInt64(o.Size)))
	}
	if len(listed.Contents) != 1 || aws.ToString(listed.Contents[0].Key) != l.Object || aws.ToInt64(listed.Contents[0].Size) != int64(p.Size) {
		return nil, fmt.Errorf("deploylocal: the result bucket holds %q, want %s (%d bytes) alone", keys, l.Object, p.Size)
	}
	obj, err := s3c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(d.bucket), Key: aws.String(l.Object)})
	if err != nil {
		return nil, fmt.Errorf("deploylocal: get %s: %w", l.Object, err)
	}
	data, err := io.ReadAll(obj.Body)
	obj.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("deploylocal: read %s: %w", l.Object, err)
	}
	sum := sha256.Sum256(data)
	if len(data) != p.Size || hex.EncodeToString(sum[:]) != p.SHA256 {
		return nil, fmt.Errorf("deploylocal: %s holds %d bytes of SHA-256 %x, the pointer says %d of %s", l.Object, len(data), sum, p.Size, p.SHA256)
	}
	result := data
	switch p.Encoding {
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err == nil {
			result, err = io.ReadAll(zr)
		}
		if err != nil {
			return nil, fmt.Errorf("deploylocal: %s does not gunzip: %w", l.Object, err)
		}
	case "", "raw":
	default:
		return nil, fmt.Errorf("deploylocal: %s is in encoding %q", l.Object, p.Encoding)
	}
	l.ResultBytes = len(result)
	var completion struct {
		Content string `json:"content"`
	}
	if err := json.Unmarshal(result, &completion); err != nil {
		return nil, fmt.Errorf("deploylocal: %s does not hold a completion: %w", l.Object, err)
	}
	if completion.Content != answer {
		return nil, fmt.Errorf("deploylocal: %s holds an answer of %d bytes, not the provider's %d", l.Object, len(completion.Content), len(answer))
	}
	return l, nil
}

// countReplayGets counts in reqs the successful GETs of l's object and
// the bytes they returned.
func (l *LargeResult) countReplayGets(reqs []s3Request) error {
	path := "/" + l.Bucket + "/" + l.Object
	var other []string
	for _, r := range reqs {
		switch {
		case r.Method == "GET" && r.Path == path && r.Status == 200:
			l.ReplayGets++
			l.ReplayGetBytes += r.Bytes
		default:
			other = append(other, r.String())
		}
	}
	if len(other) > 0 {
		return errors.New("deploylocal: the late duplicate's S3 requests other than the object's GET: " + strings.Join(other, "; "))
	}
	return nil
}

// newS3Client is an S3 client of moto's at endpoint, path-style (moto's
// host names no bucket).
func newS3Client(endpoint string) *s3.Client {
	return s3.NewFromConfig(aws.Config{
		Region:       Region,
		Credentials:  credentials.NewStaticCredentialsProvider("idemqlocal", "idemqlocal", ""),
		BaseEndpoint: aws.String(endpoint),
	}, func(o *s3.Options) { o.UsePathStyle = true })
}
