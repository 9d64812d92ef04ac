package pipeline

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/idemq/idemq/idem/dynamostore"
	"github.com/idemq/idemq/idem/dynamostore/dynamotest"
	"github.com/idemq/idemq/idem/pgstore"
	"github.com/idemq/idemq/idem/redisstore"
	"github.com/idemq/idemq/internal/netfault"
)

// startStore makes the run's table (key space) on cfg.Backend and the
// proxy the workers reach it through, with cfg.Store's faults.
func (r *runner) startStore(ctx context.Context) (storeRun, error) {
	switch b := r.cfg.backend(); b {
	case DynamoDB:
		return r.startDynamoDB(ctx)
	case Postgres:
		return r.startPostgres(ctx)
	case Redis:
		return r.startRedis(ctx)
	default:
		return storeRun{}, fmt.Errorf("pipeline: unknown store %q", b)
	}
}

func (r *runner) startDynamoDB(ctx context.Context) (storeRun, error) {
	if r.parts.DynamoDB == "" {
		return storeRun{}, fmt.Errorf("pipeline: no DynamoDB endpoint (%s): run under scripts/with-dynamodb.sh", dynamotest.EndpointEnv)
	}
	dynamo := NewDynamoClient(r.parts.DynamoDB)
	table := "idemq-pipeline-" + r.suffix
	if err := dynamotest.CreateTable(ctx, dynamo, table); err != nil {
		return storeRun{}, fmt.Errorf("pipeline: %w", err)
	}
	r.cleanups = append(r.cleanups, func() { _ = DeleteTable(context.Background(), dynamo, table) })
	proxy, err := NewStoreProxy(r.parts.DynamoDB, r.cfg.Store)
	if err != nil {
		return storeRun{}, err
	}
	r.cleanups = append(r.cleanups, proxy.Close)
	records, err := dynamostore.New(dynamo, table)
	if err != nil {
		return storeRun{}, err
	}
	return storeRun{
		env:     []string{"IDEMQ_TABLE=" + table, "IDEMQ_DYNAMODB_ENDPOINT=" + proxy.URL},
		records: records,
		counts:  proxy.Counts,
	}, nil
}

// startPostgres creates the table before the workers start, as the
// migration step does (the worker only checks it at start-up), and drops
// it at the end.
func (r *runner) startPostgres(ctx context.Context) (storeRun, error) {
	if r.parts.Postgres == "" {
		return storeRun{}, fmt.Errorf("pipeline: no PostgreSQL URL: run under scripts/with-postgres.sh")
	}
	pool, err := pgxpool.New(ctx, r.parts.Postgres)
	if err != nil {
		return storeRun{}, fmt.Errorf("pipeline: postgres: %w", err)
	}
	r.cleanups = append(r.cleanups, pool.Close)
	table := "idemq_pipeline_" + r.suffix
	if err := pgstore.CreateTable(ctx, pool, table); err != nil {
		return storeRun{}, fmt.Errorf("pipeline: postgres: %w", err)
	}
	r.cleanups = append(r.cleanups, func() {
		_, _ = pool.Exec(context.Background(), "DROP TABLE IF EXISTS "+pgx.Identifier{table}.Sanitize())
	})
	workerURL, counts, err := r.startTCPProxy(r.parts.Postgres, "query")
	if err != nil {
		return storeRun{}, err
	}
	records, err := pgstore.New(pool, table)
	if err != nil {
		return storeRun{}, err
	}
	return storeRun{
		env:     []string{"IDEMQ_STORE=postgres", "IDEMQ_STORE_URL=" + workerURL, "IDEMQ_TABLE=" + table},
		records: records,
		counts:  counts,
	}, nil
}

// startRedis gives the run a key prefix of its own (the worker's
// IDEMQ_TABLE) and deletes its keys at the end.
func (r *runner) startRedis(ctx context.Context) (storeRun, error) {
	if r.parts.Redis == "" {
		return storeRun{}, fmt.Errorf("pipeline: no Redis URL: run under scripts/with-redis.sh")
	}
	opts, err := redis.ParseURL(r.parts.Redis)
	if err != nil {
		return storeRun{}, fmt.Errorf("pipeline: redis: %w", err)
	}
	client := redis.NewClient(opts)
	if err := client.Ping(ctx).Err(); err != nil {
		_ = client.Close()
		return storeRun{}, fmt.Errorf("pipeline: redis at %s: %w", r.parts.Redis, err)
	}
	prefix := "idemq-pipeline-" + r.suffix
	r.cleanups = append(r.cleanups, func() {
		ctx := context.Background()
		iter := client.Scan(ctx, 0, prefix+":*", 1000).Iterator()
		for iter.Next(ctx) {
			client.Del(ctx, iter.Val())
		}
		_ = client.Close()
	})
	workerURL, counts, err := r.startTCPProxy(r.parts.Redis, "command")
	if err != nil {
		return storeRun{}, err
	}
	records, err := redisstore.New(client, redisstore.WithPrefix(prefix+":"))
	if err != nil {
		return storeRun{}, err
	}
	return storeRun{
		env:     []string{"IDEMQ_STORE=redis", "IDEMQ_STORE_URL=" + workerURL, "IDEMQ_TABLE=" + prefix},
		records: records,
		counts:  counts,
	}, nil
}

// startTCPProxy starts a netfault proxy to the server of serverURL that
// injects cfg.Store's faults into the requests about a record (named
// op in the counts), and returns serverURL with the proxy's address.
func (r *runner) startTCPProxy(serverURL, op string) (string, func() map[string]int, error) {
	u, err := url.Parse(serverURL)
	if err != nil {
		return "", nil, fmt.Errorf("pipeline: %w", err)
	}
	target := u.Host
	if u.Port() == "" {
		return "", nil, fmt.Errorf("pipeline: %s names no port", serverURL)
	}
	plan := newFaultPlan(r.cfg.Store, faultRefused)
	p, err := netfault.Start(target, func(req []byte) netfault.Verdict {
		switch plan.draw(op, wireKey(req)) {
		case faultRefused:
			return netfault.Refuse
		case faultLost:
			return netfault.LoseAnswer
		}
		return netfault.Pass
	})
	if err != nil {
		return "", nil, fmt.Errorf("pipeline: %w", err)
	}
	r.cleanups = append(r.cleanups, p.Close)
	u.Host = p.Addr()
	return u.String(), plan.Counts, nil
}

// keyOnTheWire finds a record key of the run's namespace in what a client
// sends: PostgreSQL's query parameters and Redis's command arguments carry
// it as plain bytes.
var keyOnTheWire = regexp.MustCompile(regexp.QuoteMeta(Namespace+"#") + `[A-Za-z0-9._-]+`)

// wireKey is the record key a request names, "" if none: the connection's
// set-up, the table's creation and checks.
func wireKey(req []byte) string {
	return string(keyOnTheWire.Find(req))
}

// StoreFaulted sums the store requests the proxy refused, and those whose
// answer it cut, across operations.
func (rep *Report) StoreFaulted() (refused, lost int) {
	for k, n := range rep.Store {
		switch {
		case strings.HasSuffix(k, " "+faultRefused), strings.HasSuffix(k, " "+faultThrottled):
			refused += n
		case strings.HasSuffix(k, " "+faultLost):
			lost += n
		}
	}
	return refused, lost
}
