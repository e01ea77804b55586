package drivers

// ErrorClass names what kind of failure a database error is, in words
// every database shares; the engine counts and retries by it.
type ErrorClass string

// Error classes. The first four are contention: the same work may succeed
// if tried again.
const (
	ErrorOther         ErrorClass = ""              // not one the driver knows
	ErrorBusy          ErrorClass = "busy"          // the store is locked by another writer
	ErrorSerialization ErrorClass = "serialization" // a serializable transaction lost
	ErrorDeadlock      ErrorClass = "deadlock"      // two transactions waited on each other
	ErrorConflict      ErrorClass = "conflict"      // a write-write conflict between transactions
	ErrorTimeout       ErrorClass = "timeout"       // a statement or lock timeout of the database
	ErrorDiskFull      ErrorClass = "disk_full"     // the store could not grow
)

// ContentionClasses are the classes a write is retried on, in the order
// logs/contention.log lists them.
var ContentionClasses = []ErrorClass{ErrorBusy, ErrorSerialization, ErrorDeadlock, ErrorConflict}

// Contention reports whether c is a contention class.
func (c ErrorClass) Contention() bool {
	for _, cc := range ContentionClasses {
		if c == cc {
			return true
		}
	}
	return false
}

// ErrorClassifier is implemented by drivers that can tell what kind of
// failure one of their errors is, from the database's error codes and,
// for errors that crossed a process as text, its wording.
type ErrorClassifier interface {
	ClassifyError(err error) ErrorClass
}

// ClassifyError is d's class of err: ErrorOther for nil, or when d does
// not classify errors.
func ClassifyError(d Driver, err error) ErrorClass {
	if err == nil {
		return ErrorOther
	}
	if ec, ok := d.(ErrorClassifier); ok {
		return ec.ClassifyError(err)
	}
	return ErrorOther
}
