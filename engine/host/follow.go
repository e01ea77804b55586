package host

import (
	"fmt"
	"io"
	"os"
)

// FollowFile remembers where the file at path ends now. since copies to w
// what was written to the file after that, and closes it: call it once.
func FollowFile(path string) (since func(w io.Writer) error, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	from, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("seeking to the end of %s: %w", path, err)
	}
	return func(w io.Writer) error {
		defer f.Close()
		if _, err := f.Seek(from, io.SeekStart); err != nil {
			return err
		}
		_, err := io.Copy(w, f)
		return err
	}, nil
}
