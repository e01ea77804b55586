//go:build !unix

package postgres

import (
	"context"

	"github.com/mentat-spec/mentat-spec/drivers"
)

// ColdStart implements drivers.ColdStarter: restarting a server and
// evicting its files is done on unix systems only.
func (b *Backend) ColdStart(context.Context) (drivers.ColdStart, error) {
	why := "restarting the server is supported on unix systems only"
	return drivers.ColdStart{NoRestart: why, NoFiles: why}, nil
}
