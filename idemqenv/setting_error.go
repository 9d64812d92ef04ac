package idemqenv

import (
	"errors"
	"fmt"
	"slices"

	"github.com/idemq/idemq/idem"
)

// SettingError reports err, a library's refusal of a setting (an
// *idem.ConfigError), as a configuration error naming the variable that
// sets it (Var.Sets): "bad configuration: IDEMQ_HEARTBEAT: idem: Heartbeat
// 4s: must be at most half of Lease 4s: ...". A refusal of a setting no
// variable sets is "bad configuration: " and the refusal; other errors are
// returned as they are. errors.Is and errors.As still see err.
func SettingError(err error) error {
	bad, ok := errors.AsType[*idem.ConfigError](err)
	if !ok {
		return err
	}
	if name := settingVar(bad.Package + "." + bad.Field); name != "" {
		return fmt.Errorf("bad configuration: %s: %w", name, err)
	}
	return fmt.Errorf("bad configuration: %w", err)
}

// settingVar is the variable that sets the library setting named, or "".
func settingVar(setting string) string {
	for _, v := range vars {
		if slices.Contains(v.Sets, setting) {
			return v.Name
		}
	}
	return ""
}
