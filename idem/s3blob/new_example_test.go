package s3blob_test

import (
	"context"
	"log"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/idem/s3blob"
)

// New takes an S3 client, the bucket and a key prefix; idem.WithBlobs
// hands it to a handler, whose results too large for a record then go to
// the bucket. (Not run: it needs AWS.)
func ExampleNew() {
	var cfg aws.Config // from config.LoadDefaultConfig(ctx)
	blobs, err := s3blob.New(s3.NewFromConfig(cfg), "my-results", "idem/")
	if err != nil {
		log.Fatal(err) // a nil client, an empty bucket name, a bad option
	}
	store, _ := memstore.New() // dynamostore.New(...) when deployed
	type Summarise struct {
		DocumentID string `json:"document_id" idemq:"key"`
	}
	h, err := handler.NewTyped(store, func(ctx context.Context, doc Summarise) (string, error) {
		return "a long summary of " + doc.DocumentID, nil
	}, handler.WithIdem(idem.WithBlobs(blobs)))
	if err != nil {
		log.Fatal(err)
	}
	_ = h // lambda.Start(h)
}
