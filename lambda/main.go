// Command lambda is idemq's reference worker: an SQS-triggered Lambda
// function (provided.al2023, built as bootstrap with -tags lambda.norpc),
// or, with IDEMQ_CONSUMER_QUEUE_URL, a long-running consumer of a queue,
// that sends each message's model request to an OpenAI-compatible provider
// once per idempotency key, and stores the completion as the key's result.
//
// Configuration is read from the IDEMQ_* environment at start-up, every
// variable as package idemqenv declares it (docs/environment.md's table is
// generated from it); a bad or missing variable stops the function with a
// message naming every one at fault (a URL in it shown with its password
// hidden, or not at all). Every mode is wired by package worker, the same
// contract a function of your own takes; the reference worker adds its
// model provider (IDEMQ_PROVIDER_URL, required, and its API key, in plain
// text or read once from Secrets Manager) and its tracer (IDEMQ_TRACING).
//
// IDEMQ_MODE=frontdoor serves the HTTP front door (package frontdoor;
// docs/frontdoor.md) over the worker's records, and IDEMQ_MODE=dispatch
// starts one Lambda durable execution per key instead (package durable;
// docs/dispatcher.md).
//
// With the postgres store the worker only checks, at start-up, that
// IDEMQ_TABLE exists with the store's shape (pgstore.Store.Check, a read of
// the catalog), and stops if not. Creating it is a migration step, run
// once with DDL rights before the workers start:
//
//	IDEMQ_STORE=postgres IDEMQ_STORE_URL=postgres://... IDEMQ_TABLE=idempotency go run ./lambda -migrate
//
// (or make migrate-postgres, or the built bootstrap with -migrate) creates
// the table and its index if missing (pgstore.CreateTable), reports what
// differs in a table of another shape, and exits. It reads only those
// three variables.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/idemq/idemq/consumer"
	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem/pgstore"
	"github.com/idemq/idemq/idem/pgstore/pgenv"
	"github.com/idemq/idemq/idem/redisstore/redisenv"
	"github.com/idemq/idemq/idem/stores"
	"github.com/idemq/idemq/idemqenv"
	"github.com/idemq/idemq/worker"
)

func main() {
	migrateOnly := flag.Bool("migrate", false, "create the PostgreSQL table of records (IDEMQ_STORE=postgres, IDEMQ_STORE_URL, IDEMQ_TABLE) if it is missing, check its shape, and exit")
	flag.Parse()
	if *migrateOnly {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		err := migrate(ctx, os.Getenv, os.Stdout)
		cancel()
		if err != nil {
			fmt.Fprintf(os.Stderr, "idemq worker -migrate: %v\n", err)
			os.Exit(1)
		}
		return
	}
	logger := slog.New(slog.NewJSONHandler(os.Stdout, nil))
	p, err := start(context.Background(), os.Getenv, logger)
	if err == nil {
		err = offLambda(p, os.Getenv)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "idemq worker: %v\n", err)
		os.Exit(1)
	}
	defer p.worker.Close()
	if p.frontDoor != nil {
		if err := serveFrontDoor(p.frontDoor, p.frontDoorAddr); err != nil {
			fmt.Fprintf(os.Stderr, "idemq worker: %v\n", err)
			os.Exit(1)
		}
		return
	}
	if err := p.worker.Run(context.Background()); err != nil { // Lambda, or the consumer until SIGTERM
		fmt.Fprintf(os.Stderr, "idemq worker: %v\n", err)
		os.Exit(1)
	}
}

// offLambda is the error of a program that would serve Lambda (no
// consumer's queue, no front door's address) where getenv has no Lambda
// runtime API, which aws-lambda-go would only report by its variables'
// names; nil otherwise.
func offLambda(p program, getenv func(string) string) error {
	if getenv("AWS_LAMBDA_RUNTIME_API") != "" {
		return nil
	}
	switch {
	case p.frontDoor != nil && p.frontDoorAddr == "":
		return fmt.Errorf("not in Lambda (AWS_LAMBDA_RUNTIME_API is unset) and no IDEMQ_FRONTDOOR_ADDR: set it to serve HTTP here, or run in Lambda")
	case p.frontDoor == nil && p.consumer == nil:
		return worker.ErrNotLambda
	}
	return nil
}

// program is what start wires, by package worker in each mode: the
// Worker, and what it serves (its handler and consumer, or the front
// door, on frontDoorAddr if set).
type program struct {
	worker        *worker.Worker
	handler       handler.Handler
	consumer      *consumer.Consumer // nil: Lambda mode
	frontDoor     http.Handler
	frontDoorAddr string
}

// startup reads the configuration through getenv and wires the handler.
// Its error never holds the store's password: values that may hold one are
// shown redacted or not at all, and what the store's client says is
// stripped of them.
func startup(ctx context.Context, getenv func(string) string, logger *slog.Logger, awsOpts ...func(*awsconfig.LoadOptions) error) (handler.Handler, error) {
	p, err := start(ctx, getenv, logger, awsOpts...)
	return p.handler, err
}

// start reads the configuration through getenv and wires the program its
// mode says through worker.FromEnv, every mode with one AWS configuration
// (the SDK's default with awsOpts, loaded once and only when a client
// needs it; tests point it at fake servers) and the PostgreSQL and Redis
// stores. One error names every bad setting: those idemqenv.Read finds,
// those the parts refuse, and the reference worker's own (its model
// provider's URL, checkProvider).
func start(ctx context.Context, getenv func(string) string, logger *slog.Logger, awsOpts ...func(*awsconfig.LoadOptions) error) (program, error) {
	// The mode's and the front door's settings, to choose options by;
	// FromEnv reads the same and reports what Read refuses.
	s, _ := idemqenv.Read(getenv)
	var (
		once   sync.Once
		awsCfg aws.Config
		awsErr error
	)
	loadAWS := func(ctx context.Context) (aws.Config, error) {
		once.Do(func() {
			if awsCfg, awsErr = awsconfig.LoadDefaultConfig(ctx, awsOpts...); awsErr != nil {
				awsErr = fmt.Errorf("AWS configuration: %w", awsErr)
			}
		})
		return awsCfg, awsErr
	}
	wk := &work{}
	w, err := worker.FromEnv(ctx, getenv, wk.handle, worker.WithConfig(worker.Config{
		Logger:           logger,
		AWS:              loadAWS,
		Stores:           []stores.Opener{pgenv.Opener(), redisenv.Opener()},
		Tracing:          newTracer,
		FrontDoorOptions: frontDoorScope(s.FrontDoor.Scope), // lambda/frontdoor.go
		Check:            checkProvider(getenv),
	}))
	if err != nil {
		if errors.Is(err, pgstore.ErrTableShape) {
			err = fmt.Errorf("%w; %s", err, migrateHint)
		}
		return program{}, stores.Redact(err, s.Store.URL)
	}
	if s.Program == idemqenv.Worker {
		if err := wk.connect(ctx, s, loadAWS, w.Connections); err != nil {
			w.Close()
			return program{}, err
		}
	}
	p := program{worker: w, handler: w.Handler, consumer: w.Consumer, frontDoor: w.FrontDoor}
	if w.FrontDoor != nil {
		p.frontDoorAddr = s.FrontDoor.Addr
	}
	return p, nil
}

// connect readies worker mode's model calls before any batch (Run starts
// serving after): the provider's API key read from Secrets Manager if a
// secret is named, and the provider's pool sized as the worker's
// (Worker.Connections).
func (wk *work) connect(ctx context.Context, s idemqenv.Settings, loadAWS func(context.Context) (aws.Config, error), connections int) error {
	apiKey := s.Provider.APIKey
	if s.Provider.APIKeySecret != "" {
		cfg, err := loadAWS(ctx)
		if err != nil {
			return err
		}
		if apiKey, err = readAPIKey(ctx, secretsmanager.NewFromConfig(cfg), s.Provider.APIKeySecret); err != nil {
			return err
		}
	}
	wk.provider = newProvider(s.Provider.URL, apiKey, connections)
	return nil
}
