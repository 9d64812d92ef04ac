package main

import (
	"fmt"

	"github.com/idemq/idemq/idemqenv"
)

// checkProvider is the reference worker's own requirement (worker.Config.Check),
// reported with every other bad setting: in worker mode, its model
// provider's URL. A URL set but refused is idemqenv.Read's to report.
func checkProvider(getenv func(string) string) func(idemqenv.Settings) error {
	return func(s idemqenv.Settings) error {
		if s.Program == idemqenv.Worker && s.Provider.URL == "" && getenv("IDEMQ_PROVIDER_URL") == "" {
			return fmt.Errorf("IDEMQ_PROVIDER_URL is required: the model provider's OpenAI-compatible base URL, like https://api.openai.com/v1")
		}
		return nil
	}
}
