// Package stores opens the store of records that settings name: the
// worker's IDEMQ_STORE, IDEMQ_TABLE, IDEMQ_STORE_URL and DynamoDB
// variables, as package idemqenv reads them into a Settings. Each store's
// module has an Opener of its own (dynamoenv.Opener, pgenv.Opener,
// redisenv.Opener), so that a program pays only for the drivers it names;
// the memory store needs none. Open picks the opener of the kind the
// settings name.
//
// A store URL holds the store's password: RedactURL, ShowURL, Redact and
// URLError keep it out of every message. KeepConnections sizes an AWS SDK
// client's connections for the requests under way at once.
//
// It imports only idem and the memory store, so that the stores' modules
// can import it without climbing above the model.
package stores
