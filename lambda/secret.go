package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
)

// secretTimeout bounds the start-up read of the provider's API key,
// retries included: well inside the 10 s Lambda gives a function's init.
const secretTimeout = 8 * time.Second

// secretGetter is the Secrets Manager call the worker makes;
// *secretsmanager.Client satisfies it.
type secretGetter interface {
	GetSecretValue(ctx context.Context, in *secretsmanager.GetSecretValueInput, optFns ...func(*secretsmanager.Options)) (*secretsmanager.GetSecretValueOutput, error)
}

// readAPIKey reads the provider's API key, the SecretString of the secret
// named by id (its name or ARN), once at start-up. Surrounding whitespace is
// dropped: a key saved from a file often ends in a newline, which no HTTP
// header may hold. Errors name IDEMQ_PROVIDER_API_KEY_SECRET.
func readAPIKey(ctx context.Context, client secretGetter, id string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, secretTimeout)
	defer cancel()
	out, err := client.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String(id)})
	if err != nil {
		return "", fmt.Errorf("IDEMQ_PROVIDER_API_KEY_SECRET=%q: reading the provider's API key: %w", id, err)
	}
	if out.SecretString == nil {
		return "", fmt.Errorf("IDEMQ_PROVIDER_API_KEY_SECRET=%q: the secret has no SecretString (a binary secret?): store the API key as the secret's string", id)
	}
	key := strings.TrimSpace(*out.SecretString)
	switch {
	case key == "":
		return "", fmt.Errorf("IDEMQ_PROVIDER_API_KEY_SECRET=%q: the secret's SecretString is empty: store the provider's API key in it", id)
	case strings.HasPrefix(key, "{"):
		// The console's default "key/value" secret: the bearer token would
		// be the JSON, and every request would be refused.
		return "", fmt.Errorf("IDEMQ_PROVIDER_API_KEY_SECRET=%q: the secret's SecretString is JSON (a key/value secret?): store the bare API key as plain text", id)
	}
	return key, nil
}
