package main

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/secretsmanager/types"
)

func TestReadAPIKey(t *testing.T) {
	t.Parallel()
	const arn = "arn:aws:secretsmanager:us-east-1:123456789012:secret:idemq/provider-key-AbCdEf"
	f := newFakeSecrets(t, map[string]fakeSecret{
		"idemq/provider-key": {str: "sk-from-secret"},
		arn:                  {str: "sk-by-arn"},
		"from-a-file":        {str: "sk-with-newline\n"},
		"empty":              {str: ""},
		"blank":              {str: " \n"},
		"key-value":          {str: `{"api_key":"sk-in-json"}`},
		"binary":             {binary: []byte("sk-binary")},
	})
	client := f.client()

	for _, c := range []struct{ id, want string }{
		{"idemq/provider-key", "sk-from-secret"},
		{arn, "sk-by-arn"},
		{"from-a-file", "sk-with-newline"},
	} {
		got, err := readAPIKey(context.Background(), client, c.id)
		if err != nil || got != c.want {
			t.Errorf("readAPIKey(%q) = %q, %v; want %q", c.id, got, err, c.want)
		}
	}
	for _, call := range f.all() {
		if call.Target != "secretsmanager.GetSecretValue" || !call.Auth {
			t.Errorf("Secrets Manager request %+v: want a signed GetSecretValue", call)
		}
	}
	if calls := f.all(); len(calls) != 3 || calls[1].SecretID != arn {
		t.Errorf("Secrets Manager requests %+v: want one per read, with the id as given", calls)
	}

	for _, id := range []string{"empty", "blank", "key-value", "binary", "missing"} {
		_, err := readAPIKey(context.Background(), client, id)
		if err == nil {
			t.Errorf("readAPIKey(%q): no error", id)
			continue
		}
		if !strings.Contains(err.Error(), "IDEMQ_PROVIDER_API_KEY_SECRET") || !strings.Contains(err.Error(), id) {
			t.Errorf("readAPIKey(%q): error %q does not name IDEMQ_PROVIDER_API_KEY_SECRET and the secret", id, err)
		}
	}
	var notFound *types.ResourceNotFoundException
	if _, err := readAPIKey(context.Background(), client, "missing"); !errors.As(err, &notFound) {
		t.Errorf("readAPIKey of a missing secret: %v, want the SDK's ResourceNotFoundException wrapped", err)
	}
}
