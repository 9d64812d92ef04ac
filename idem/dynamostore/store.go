package dynamostore

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/internal/optkit"
)

// API is the part of the DynamoDB client the store calls. *dynamodb.Client
// satisfies it; tests wrap it to count or fail requests.
type API interface {
	PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
	DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error)
	TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error)
	GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	// Scan and Query serve List (idem.Admin), an operator's listing;
	// Do never calls them.
	Scan(ctx context.Context, in *dynamodb.ScanInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error)
	Query(ctx context.Context, in *dynamodb.QueryInput, optFns ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error)
}

var (
	_ API        = (*dynamodb.Client)(nil)
	_ idem.Store = (*Store)(nil)
)

// Store is an idem.Store kept in one DynamoDB table, one item per key. Each
// method is one request whose condition DynamoDB evaluates, so any number
// of workers can share a table. It is safe for concurrent use.
type Store struct {
	api   API
	table string
	attrs Attributes
	// maxItemBytes is the item size Complete refuses to exceed.
	maxItemBytes int
	// sortKey, when set, is the attribute holding the key, and
	// partitionValue the partition key of every record (WithSortKey).
	sortKey, partitionValue string
	// noTransactions refuses staged writes (Config.MultiRegionStrong).
	noTransactions bool
}

// New returns a Store keeping records in table through client, or an
// error joining an *idem.ConfigError for every bad setting: a nil
// client, an empty table name, a nil option, a setting Validate refuses.
func New(client API, table string, opts ...Option) (*Store, error) {
	var errs []error
	if c, ok := client.(*dynamodb.Client); client == nil || ok && c == nil {
		errs = append(errs, configError("client", "", optkit.ErrNil))
	}
	if table == "" {
		errs = append(errs, configError("table", `""`, errEmpty))
	}
	c, err := resolve(opts)
	if err := errors.Join(append(errs, err)...); err != nil {
		return nil, err
	}
	return &Store{api: client, table: table, attrs: c.Attributes, maxItemBytes: maxItemBytes, sortKey: c.SortKey, partitionValue: c.PartitionValue, noTransactions: c.MultiRegionStrong}, nil
}

// Table returns the name of the table the store writes to.
func (s *Store) Table() string { return s.table }

// Attributes returns the attribute names the store uses, defaults filled in.
func (s *Store) Attributes() Attributes { return s.attrs }

// maxItemBytes is DynamoDB's item size limit, 400 KB: the UTF-8 lengths of
// the attribute names plus the sizes of their values.
const maxItemBytes = 400 * 1024
