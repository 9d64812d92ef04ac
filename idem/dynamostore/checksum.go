package dynamostore

import (
	"bytes"
	"context"
	"hash/crc32"
	"io"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// DynamoDB sends the CRC32 of every answer's body in the X-Amz-Crc32
// header, and the SDK's client checks the body against it when it closes
// the body, logging a mismatch at WARN ("failed to close HTTP response
// body ...: response did not match expected checksum"). DynamoDB Local
// sends no header with an error answer, and the SDK then compares the body
// with 0: every failed condition (a duplicate's claim), and any other
// error, logs that warning through a client with a logger, such as
// config.LoadDefaultConfig's, and costs the CPU of formatting it.
//
// errorChecksums is a per-request option every call of the store passes:
// for an error answer that lacks the header, it supplies the body's own
// CRC32, so the SDK's check passes. An answer with the header (every one
// DynamoDB sends) and every successful answer are checked as before, and
// a client whose check is turned off (DisableValidateResponseChecksum) is
// left alone.
func errorChecksums(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, addErrorChecksum)
}

// sdkChecksumID is the ID of the SDK's check in the client's middleware
// stack (service/dynamodb/internal/customizations).
const sdkChecksumID = "DynamoDB:ResponseChecksumValidation"

// maxErrorBody is the longest error answer errorChecksums reads to sum;
// DynamoDB's are a few hundred bytes.
const maxErrorBody = 1 << 20

func addErrorChecksum(stack *middleware.Stack) error {
	if _, ok := stack.Deserialize.Get(sdkChecksumID); !ok {
		return nil
	}
	// After the SDK's check in the deserialize step is nearer the
	// transport: this sees the answer first, and the check wraps its body
	// after.
	return stack.Deserialize.Insert(errorChecksum{}, sdkChecksumID, middleware.After)
}

// errorChecksum supplies X-Amz-Crc32 to an error answer without one.
type errorChecksum struct{}

func (errorChecksum) ID() string { return "idemq:ErrorAnswerChecksum" }

func (errorChecksum) HandleDeserialize(ctx context.Context, in middleware.DeserializeInput, next middleware.DeserializeHandler) (middleware.DeserializeOutput, middleware.Metadata, error) {
	out, md, err := next.HandleDeserialize(ctx, in)
	if err != nil {
		return out, md, err
	}
	resp, ok := out.RawResponse.(*smithyhttp.Response)
	if !ok || resp.Body == nil || resp.StatusCode < 300 || resp.Header.Get("X-Amz-Crc32") != "" {
		return out, md, err
	}
	body, rerr := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody+1))
	if rerr != nil || len(body) > maxErrorBody {
		// Leave the answer as it is: what was read goes back in front.
		resp.Body = readCloser{io.MultiReader(bytes.NewReader(body), resp.Body), resp.Body}
		return out, md, err
	}
	resp.Header.Set("X-Amz-Crc32", strconv.FormatUint(uint64(crc32.ChecksumIEEE(body)), 10))
	resp.Body = readCloser{bytes.NewReader(body), resp.Body}
	return out, md, err
}

// readCloser reads from one reader and closes another.
type readCloser struct {
	io.Reader
	io.Closer
}
