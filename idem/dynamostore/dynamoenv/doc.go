// Package dynamoenv opens the DynamoDB store of records from the worker's
// settings (IDEMQ_STORE=dynamodb, IDEMQ_TABLE, IDEMQ_DYNAMODB_ENDPOINT,
// as package idemqenv reads them into a stores.Settings): the worker, the
// command and your own function open it through Opener.
package dynamoenv
