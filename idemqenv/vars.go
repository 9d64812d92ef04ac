package idemqenv

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/stores"
	"github.com/idemq/idemq/queue"
	"github.com/idemq/idemq/request"
)

// Programs that read a group of variables.
const (
	storing  = Worker | FrontDoor | Command // the store of records
	keyed    = Worker | FrontDoor | Dispatch
	lambdaed = Worker | FrontDoor | Dispatch // every program that runs as a function
	consumed = Worker | Dispatch             // the programs with a consumer mode
)

// vars is the table: every variable, in the order the docs list them.
// Who a request is (requestVars) is request.Fields' table, not this one's.
var vars = slices.Concat([]Var{
	{Name: "IDEMQ_MODE", Programs: lambdaed, Default: "`worker`",
		Doc:   "what the program is: `worker` (claims and runs each record, on Lambda or as a consumer), `frontdoor` (the HTTP front door, docs/frontdoor.md) or `dispatch` (to a Lambda durable function, docs/dispatcher.md)",
		value: modeValue()},

	// The store of records.
	{Name: "IDEMQ_STORE", Programs: storing, Default: "`dynamodb`", Flag: "store",
		Doc:   "the store of records: `dynamodb`, `postgres`, `redis`, or `memory` for local runs (records last as long as the process; the command refuses it)",
		value: enumValue(func(s *Settings) *string { return &s.Store.Kind }, stores.DynamoDB, stores.Postgres, stores.Redis, stores.Memory)},
	{Name: "IDEMQ_TABLE", Programs: storing, Flag: "table", Sets: []string{"dynamostore.table", "pgstore.table", "redisstore.Prefix"},
		Doc:   "table of records: DynamoDB's, or PostgreSQL's (its shape checked at start-up, never created there); the key prefix on Redis; required with the DynamoDB and PostgreSQL stores",
		value: stringValue(func(s *Settings) *string { return &s.Store.Table }, nil)},
	{Name: "IDEMQ_STORE_URL", Programs: storing, Flag: "store-url",
		Doc:   "the `postgres://` or `redis://` URL of those stores, required with them (pgx and go-redis URLs; a key=value connection string is not taken; percent-encode `@ : / ? #` in the user name and password); shown only with its password and query values hidden",
		value: storeURLValue()},
	{Name: "IDEMQ_DYNAMODB_ENDPOINT", Programs: storing, Default: "the AWS endpoint", Flag: "dynamodb-endpoint",
		Doc:   "DynamoDB endpoint URL, for DynamoDB Local",
		value: urlValue(func(s *Settings) *string { return &s.Store.DynamoDBEndpoint })},
	{Name: "IDEMQ_DYNAMODB_MULTI_REGION_STRONG", Programs: storing, Default: "`false`",
		Sets:  []string{"dynamostore.MultiRegionStrong"},
		Doc:   "`true` when the DynamoDB table is a global table with multi-Region strong consistency (`dynamostore.WithMultiRegionStrong`): staged writes are refused before anything is sent, as such a table runs no transactions; the CDK stack sets it with `Replicas`",
		value: boolValue(func(s *Settings) *bool { return &s.Store.DynamoDBStrong })},
}, requestVars(), []Var{
	// The claim.
	{Name: "IDEMQ_RECORD_EXPIRY", Programs: Worker | FrontDoor | Command, Default: idem.DefaultExpiry.String() + " (`idem.DefaultExpiry`)", Flag: "record-expiry",
		Sets:  []string{"idem.Expiry"},
		Doc:   "how long records live (Go duration), at least 60 s (SQS's shortest retention); with `IDEMQ_QUEUE`, at least the message lifetime (a warning below the redrive lifetime); size it with `queue.RecordLifetime`",
		value: durationValue(func(s *Settings) *time.Duration { return &s.RecordExpiry })},
	{Name: "IDEMQ_LEASE", Programs: Worker, Default: "on Lambda the records' time left + 10 s (the invocation's + 7.5 s); in consumer mode 1 minute renewed every 20 s (`consumer.DefaultShortLease`, `consumer.DefaultHeartbeat`)",
		Sets:  []string{"idem.Lease"},
		Doc:   "claim lease (Go duration), at most `IDEMQ_RECORD_EXPIRY`; with `IDEMQ_QUEUE`, short enough that a crashed worker's message keeps a receive for its retry (`queue.CheckLease`)",
		value: durationValue(func(s *Settings) *time.Duration { return &s.Lease })},
	{Name: "IDEMQ_HEARTBEAT", Programs: Worker, Default: "off on Lambda; in consumer mode without `IDEMQ_LEASE`, 20 s (`consumer.DefaultHeartbeat`)",
		Sets:  []string{"idem.Heartbeat"},
		Doc:   "extend a running record's lease this often (Go duration), at most half of the lease: on Lambda it needs `IDEMQ_LEASE` (the default lease already covers the whole invocation); in consumer mode without `IDEMQ_LEASE` it renews the consumer's default 1-minute lease, at most every 30 s",
		value: durationValue(func(s *Settings) *time.Duration { return &s.Heartbeat })},
	{Name: "IDEMQ_CLOCK_SKEW", Programs: Worker | FrontDoor, Default: idem.DefaultClockSkew.String() + " (`idem.DefaultClockSkew`)",
		Sets:  []string{"idem.ClockSkew"},
		Doc:   "the bound on every worker's clock error (Go duration) within which no live lease is taken over: claims judge leases and expiries this much late, and write them this much long (docs/protocol.md, \"Clocks\"); give every worker and front door of a table the same value",
		value: durationValue(func(s *Settings) *time.Duration { return &s.ClockSkew })},
	{Name: "IDEMQ_COMPRESS_ABOVE", Programs: Worker, Default: strconv.Itoa(idem.DefaultCompressAbove),
		Sets:  []string{"idem.CompressAbove"},
		Doc:   "size in bytes above which results are stored gzipped (`idem.Config.CompressAbove`), or `off`: for a rolling upgrade from a release without compression, or a table Powertools also reads",
		value: compressValue()},

	// The batch.
	{Name: "IDEMQ_CONCURRENCY", Programs: Worker | Dispatch, Default: "100 (the dispatcher: 10)",
		Sets:  []string{"handler.Concurrency", "durable.Concurrency"},
		Doc:   "records of a batch at once; the pools are sized for it times `AWS_LAMBDA_MAX_CONCURRENCY`",
		value: countValue(func(s *Settings) *int { return &s.Concurrency })},
	{Name: "AWS_LAMBDA_MAX_CONCURRENCY", Programs: lambdaed, Default: "1",
		Doc:   "set by Lambda, not by you: on a capacity provider (Lambda Managed Instances) the invocations run at once in the process; anything but a whole number ≥ 1 is 1, as aws-lambda-go reads it",
		value: maxConcurrencyValue()},

	// The back-off and SQS.
	{Name: "IDEMQ_BACKOFF", Programs: Worker, Default: "`true`",
		Doc:   "give an in-progress message back at its lease's end (needs `sqs:ChangeMessageVisibility`); `false` turns it off",
		value: boolValue(func(s *Settings) *bool { return &s.Backoff })},
	{Name: "IDEMQ_SQS_ENDPOINT", Programs: Worker | FrontDoor | Dispatch | Command, Default: "the AWS endpoint", Flag: "sqs-endpoint",
		Doc:   "SQS endpoint URL of the back-off, the consumer and the front door, for a local SQS server; outside consumer mode not with `IDEMQ_BACKOFF=false`",
		value: urlValue(func(s *Settings) *string { return &s.SQSEndpoint })},
	{Name: "IDEMQ_QUEUE_URL", Programs: Worker, Default: "from each record's event source ARN; in consumer mode the consumed queue",
		Sets:  []string{"handler.QueueURL"},
		Doc:   "queue URL of the back-off (`handler.Config.QueueURL`), for a server that does not know the AWS-form URL; not with `IDEMQ_BACKOFF=false`; in consumer mode, unset or the consumed queue's",
		value: urlValue(func(s *Settings) *string { return &s.QueueURL })},
	{Name: "IDEMQ_EMF_NAMESPACE", Programs: Worker, Default: "off",
		Sets:  []string{"handler.EMFNamespace"},
		Doc:   "CloudWatch namespace of the per-batch EMF metrics (docs/handler.md, docs/operate.md)",
		value: stringValue(func(s *Settings) *string { return &s.EMFNamespace }, nil)},
	{Name: "IDEMQ_QUEUE", Programs: Worker, Default: "unchecked",
		Doc:   "the queue's settings as JSON (`queue.Settings`), as the CDK stack writes them: `" + queueExample + "`; the record expiry and the lease are checked against them",
		value: queueValue(func(s *Settings) *queue.Settings { return &s.Queue })},

	// Results too large for a record.
	{Name: "IDEMQ_BLOB_BUCKET", Programs: storing, Default: "none: every result stays in its record", Flag: "blob-bucket",
		Sets:  []string{"s3blob.bucket"},
		Doc:   "S3 bucket of results whose stored size is above `IDEMQ_OFFLOAD_ABOVE` (`s3blob`); needs `s3:PutObject` and `s3:GetObject` on the prefix, and a lifecycle rule no shorter than `IDEMQ_RECORD_EXPIRY`",
		value: stringValue(func(s *Settings) *string { return &s.Blobs.Bucket }, checkBucket)},
	{Name: "IDEMQ_BLOB_PREFIX", Programs: storing, Default: "`" + DefaultBlobPrefix + "`", Needs: "IDEMQ_BLOB_BUCKET", Flag: "blob-prefix",
		Sets:  []string{"s3blob.prefix"},
		Doc:   "object key prefix in the bucket",
		value: stringValue(func(s *Settings) *string { return &s.Blobs.Prefix }, nil)},
	{Name: "IDEMQ_OFFLOAD_ABOVE", Programs: Worker | FrontDoor, Default: strconv.Itoa(idem.DefaultOffloadAbove) + " (`idem.DefaultOffloadAbove`)", Needs: "IDEMQ_BLOB_BUCKET",
		Sets:  []string{"idem.OffloadAbove"},
		Doc:   "stored size in bytes (after compression) above which a result goes to the bucket (`idem.Config.OffloadAbove`)",
		value: bytesValue(func(s *Settings) *int { return &s.Blobs.OffloadAbove })},
	{Name: "IDEMQ_S3_ENDPOINT", Programs: Worker | FrontDoor, Default: "the AWS endpoint", Needs: "IDEMQ_BLOB_BUCKET",
		Doc:   "S3 endpoint URL, for a local S3 server (path-style addressing)",
		value: urlValue(func(s *Settings) *string { return &s.Blobs.S3Endpoint })},

	// The reference worker's model provider.
	{Name: "IDEMQ_PROVIDER_URL", Programs: Worker, ReferenceOnly: true,
		Doc:   "the reference worker's OpenAI-compatible base URL, with or without `/v1`; required by it",
		value: urlValue(func(s *Settings) *string { return &s.Provider.URL })},
	{Name: "IDEMQ_PROVIDER_API_KEY", Programs: Worker, ReferenceOnly: true, Secret: true, Default: "none",
		Doc:   "bearer token sent to the provider, in plain text (local runs); not with `IDEMQ_PROVIDER_API_KEY_SECRET`",
		value: stringValue(func(s *Settings) *string { return &s.Provider.APIKey }, nil)},
	{Name: "IDEMQ_PROVIDER_API_KEY_SECRET", Programs: Worker, ReferenceOnly: true, Default: "none",
		Doc:   "name or ARN of a Secrets Manager secret whose SecretString is the provider's bearer token, read once at start-up",
		value: stringValue(func(s *Settings) *string { return &s.Provider.APIKeySecret }, nil)},

	{Name: "IDEMQ_TRACING", Programs: Worker | FrontDoor, Default: "`off`",
		Doc:   "`otel`: OpenTelemetry spans of each batch, record and store call over OTLP/HTTP to the ADOT layer's collector (docs/tracing.md); `xray`: the same, each batch under the invocation's X-Ray trace (needs active tracing)",
		value: tracingValue()},

	// Consumer mode.
	{Name: "IDEMQ_CONSUMER_QUEUE_URL", Programs: consumed, Default: "unset: a Lambda function",
		Sets:  []string{"consumer.queueURL"},
		Doc:   "run off Lambda: receive from this queue (package `consumer`)",
		value: urlValue(func(s *Settings) *string { return &s.Consumer.QueueURL })},
	{Name: "IDEMQ_CONSUMER_MAX_RUN_TIME", Programs: consumed, Default: "15m0s (`consumer.DefaultMaxRunTime`)", Needs: "IDEMQ_CONSUMER_QUEUE_URL",
		Sets:  []string{"consumer.MaxRunTime"},
		Doc:   "each batch's deadline (Go duration), as a function's timeout; the default lease is made from it",
		value: durationValue(func(s *Settings) *time.Duration { return &s.Consumer.MaxRunTime })},
	{Name: "IDEMQ_CONSUMER_MAX_BATCHES", Programs: consumed, Default: "4 (`consumer.DefaultMaxBatches`)", Needs: "IDEMQ_CONSUMER_QUEUE_URL",
		Sets:  []string{"consumer.MaxBatches"},
		Doc:   "batches at once, up to 10 messages each",
		value: countValue(func(s *Settings) *int { return &s.Consumer.MaxBatches })},
	{Name: "IDEMQ_CONSUMER_GRACE_PERIOD", Programs: consumed, Default: "20s (`consumer.DefaultGracePeriod`)", Needs: "IDEMQ_CONSUMER_QUEUE_URL",
		Sets:  []string{"consumer.GracePeriod"},
		Doc:   "after SIGTERM, how long running work may finish before it is cancelled (Go duration)",
		value: durationValue(func(s *Settings) *time.Duration { return &s.Consumer.GracePeriod })},
	{Name: "IDEMQ_CONSUMER_VISIBILITY", Programs: consumed, Default: "the queue's", Needs: "IDEMQ_CONSUMER_QUEUE_URL",
		Sets:  []string{"consumer.VisibilityTimeout"},
		Doc:   "visibility timeout of each receive and extension: whole seconds, as a number (`60`) or a Go duration (`1m`), at least 2 s",
		value: secondsValue(func(s *Settings) *time.Duration { return &s.Consumer.Visibility })},
	{Name: "IDEMQ_HEALTH_ADDR", Programs: consumed, Default: "none", Needs: "IDEMQ_CONSUMER_QUEUE_URL",
		Doc:   "`host:port` serving `GET /healthz` (200 while receiving; 503 when stopping or after 3 failed receives in a row)",
		value: hostPortValue(func(s *Settings) *string { return &s.Consumer.HealthAddr }, ":8080")},

	// Front-door mode.
	{Name: "IDEMQ_FRONTDOOR_QUEUE_URL", Programs: FrontDoor,
		Doc:   "the worker's queue, to send requests to; required in front-door mode, with `IDEMQ_NAMESPACE`",
		value: urlValue(func(s *Settings) *string { return &s.FrontDoor.QueueURL })},
	{Name: "IDEMQ_FRONTDOOR_PATH", Programs: FrontDoor, Default: "`/requests`",
		Sets:  []string{"frontdoor.Path"},
		Doc:   "where requests are posted; each status at the path and `/{key}`",
		value: stringValue(func(s *Settings) *string { return &s.FrontDoor.Path }, nil)},
	{Name: "IDEMQ_FRONTDOOR_MAX_BODY_BYTES", Programs: FrontDoor, Default: "1048576",
		Sets:  []string{"frontdoor.MaxBodyBytes"},
		Doc:   "largest request body read; a body whose message is over the queue's size is refused too (413)",
		value: bytesValue(func(s *Settings) *int { return &s.FrontDoor.MaxBodyBytes })},
	{Name: "IDEMQ_FRONTDOOR_ADDR", Programs: FrontDoor, Default: "serve Lambda",
		Doc:   "`host:port`: serve plain HTTP there instead of Lambda, until SIGTERM or SIGINT (local runs, containers)",
		value: hostPortValue(func(s *Settings) *string { return &s.FrontDoor.Addr }, "127.0.0.1:8080")},
	{Name: "IDEMQ_FRONTDOOR_SCOPE", Programs: FrontDoor, Default: "`iam` on Lambda; `none` with `IDEMQ_FRONTDOOR_ADDR`",
		Doc:   "whose key is it: `iam` (each IAM principal's keys are its own, a request without one is 403), `iam-session` (each role session's: the users of one role, each under a session name of their own, do not share keys) or `none` (one key space shared by every caller)",
		value: enumValue(func(s *Settings) *string { return &s.FrontDoor.Scope }, ScopeIAM, ScopeIAMSession, ScopeNone)},

	// Dispatch mode.
	{Name: "IDEMQ_DURABLE_FUNCTION", Programs: Dispatch, Sets: []string{"durable.function"},
		Doc:   "the durable function's name or ARN with its version or alias, like `summarise:prod`; required in dispatch mode (needs `lambda:InvokeFunction` on it)",
		value: stringValue(func(s *Settings) *string { return &s.Dispatch.Function }, nil)},
	{Name: "IDEMQ_LAMBDA_ENDPOINT", Programs: Dispatch, Default: "the AWS endpoint",
		Doc:   "Lambda endpoint URL, for a local fake",
		value: urlValue(func(s *Settings) *string { return &s.Dispatch.LambdaEndpoint })},
})

// requestVars are the variables of who a request is, one for each field
// of request.Fields, read into Settings.Request: the field's own name,
// doc line, default and flag, refused under its name when the field is
// (Var.Sets). A field of the payload check is read by the parts that
// check payloads only.
func requestVars() []Var {
	var out []Var
	for _, f := range request.Fields() {
		programs := keyed | Command
		if f.Payload {
			programs = Worker | FrontDoor
		}
		out = append(out, Var{Name: f.Var, Programs: programs, Default: f.Default, Flag: f.Flag,
			Sets: []string{"request." + f.Name}, Doc: f.Doc, value: fieldValue(f)})
	}
	return out
}

// fieldValue parses a field of request.Identity from its variable, a
// list's names separated by commas, and writes it back.
func fieldValue(f request.Field) value {
	kind := kindString
	if f.List {
		kind = kindList
	}
	return value{kind: kind,
		parse: func(s *Settings, v string) error {
			values := []string{v}
			if f.List {
				values = strings.Split(v, ",")
				for i := range values {
					values[i] = strings.TrimSpace(values[i])
				}
			}
			return f.Set(&s.Request, values)
		},
		format: func(s Settings) string { return strings.Join(f.Get(s.Request), ",") },
	}
}

// retired are the variables no program reads any more, each with what
// replaced it. A program of the worker refuses one that is set, saying
// so: a setting that would change nothing is a mistake.
var retired = []struct{ name, why string }{
	{"IDEMQ_DURABLE_NAME_PREFIX", "each durable execution is named after the record key the worker's handler claims, in IDEMQ_NAMESPACE" +
		" (default the function's name); remove it, and set IDEMQ_NAMESPACE to the handler's namespace (docs/dispatcher.md)"},
}

// Vars returns the table of variables, in the order the docs list them.
func Vars() []Var {
	out := slices.Clone(vars)
	for i := range out {
		out[i].Sets = slices.Clone(out[i].Sets)
	}
	return out
}

// Lookup returns the variable named name.
func Lookup(name string) (Var, bool) {
	for _, v := range vars {
		if v.Name == name {
			v.Sets = slices.Clone(v.Sets)
			return v, true
		}
	}
	return Var{}, false
}

// modeValue is IDEMQ_MODE, the program.
func modeValue() value {
	return value{kind: kindEnum, values: []string{"worker", "frontdoor", "dispatch"},
		parse: func(s *Settings, v string) error {
			p, ok := modeProgram(v)
			if !ok {
				return errors.New("want worker (the default), frontdoor or dispatch")
			}
			s.Program = p
			return nil
		},
		format: func(s Settings) string {
			if s.Program == Command {
				return ""
			}
			return s.Program.String()
		},
	}
}

// storeURLValue is IDEMQ_STORE_URL, checked against the store once both
// are read (checkStore).
func storeURLValue() value {
	v := stringValue(func(s *Settings) *string { return &s.Store.URL }, nil)
	v.kind = kindStoreURL
	return v
}

// compressValue is IDEMQ_COMPRESS_ABOVE: a size in bytes, or "off" (-1).
func compressValue() value {
	return value{kind: kindBytes,
		parse: func(s *Settings, v string) error {
			if strings.EqualFold(v, "off") {
				s.CompressAbove = -1
				return nil
			}
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return errors.New("want a size in bytes of at least 1, or off")
			}
			s.CompressAbove = n
			return nil
		},
		format: func(s Settings) string {
			switch n := s.CompressAbove; {
			case n < 0:
				return "off"
			case n > 0:
				return strconv.Itoa(n)
			}
			return ""
		},
	}
}

// maxConcurrencyValue is AWS_LAMBDA_MAX_CONCURRENCY as aws-lambda-go
// v1.55.1 reads it (lambdacontext.MaxConcurrency): a whole number of at
// least 1, and 1 for anything else. The worker sizes its pools for what
// the runtime will really run, so it refuses nothing the runtime accepts.
func maxConcurrencyValue() value {
	return value{kind: kindCount,
		parse: func(s *Settings, v string) error {
			if n, err := strconv.Atoi(v); err == nil && n > 1 {
				s.MaxConcurrency = n
			}
			return nil
		},
		format: func(s Settings) string {
			if s.MaxConcurrency > 1 {
				return strconv.Itoa(s.MaxConcurrency)
			}
			return ""
		},
	}
}

// tracingValue is IDEMQ_TRACING: "off" is "".
func tracingValue() value {
	v := enumValue(func(s *Settings) *string { return &s.Tracing }, "off", "otel", "xray")
	parse := v.parse
	v.parse = func(s *Settings, value string) error {
		if err := parse(s, value); err != nil {
			return err
		}
		if s.Tracing == "off" {
			s.Tracing = ""
		}
		return nil
	}
	return v
}

// checkBucket refuses a bucket written as a URL or a path.
func checkBucket(b string) error {
	if strings.HasPrefix(b, "s3://") || strings.Contains(b, "/") {
		return fmt.Errorf("want the bucket's name, like my-results, not a URL or a path (the prefix is IDEMQ_BLOB_PREFIX)")
	}
	return nil
}
