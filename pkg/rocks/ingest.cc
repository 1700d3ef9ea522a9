// Several column families' table files made visible by one MANIFEST record.
//
// RocksDB's C API (and so grocksdb v1.11.1) ingests files into one column family per call;
// two calls are two MANIFEST records, and a crash between them would leave a store with
// half of a migration's families. DB::IngestExternalFiles takes them all at once.

#include <stdlib.h>
#include <string.h>

#include <string>
#include <vector>

#include <rocksdb/db.h>
#include <rocksdb/options.h>

#include "chandles.h"
#include "ingest.h"


char* ankusa_ingest_files(rocksdb_t* db, int n, rocksdb_column_family_handle_t* const* cfs,
                          const int* counts, const char* const* files, const int* replace,
                          int allow_flush) {
	std::vector<rocksdb::IngestExternalFileArg> args(n);
	for (int i = 0; i < n; i++) {
		args[i].column_family = cfs[i]->rep;
		for (int j = 0; j < counts[i]; j++) {
			args[i].external_files.push_back(*files++);
		}
		// The files sit in a staging directory on the store's file system: linked in, not
		// copied (the staging is removed after, whatever happened).
		args[i].options.move_files = true;
		// The store's old keys are overwritten (x, a, the format stamp) and deleted (the
		// range deletions of d and f): the files must be placed above them.
		args[i].options.allow_global_seqno = true;
		args[i].options.allow_blocking_flush = allow_flush != 0;
		args[i].options.snapshot_consistency = true;
		if (replace[i]) {
			// The family's every table file leaves it in the record that brings the new
			// ones in (both ends unset: the whole family). RocksDB calls this experimental
			// and takes it without snapshot consistency only (the tool's process holds no
			// snapshot at the commit, and the store's lock keeps every other process out);
			// with nothing left under them the files go to the last level, which
			// fail_if_not_bottommost_level makes sure of.
			args[i].options.snapshot_consistency = false;
			args[i].options.fail_if_not_bottommost_level = true;
			args[i].atomic_replace_range.emplace();
		}
	}
	rocksdb::Status s = db->rep->IngestExternalFiles(args);
	if (s.ok()) {
		return nullptr;
	}
	return strdup(s.ToString().c_str());
}

char* ankusa_pause_background(rocksdb_t* db) {
	rocksdb::Status s = db->rep->PauseBackgroundWork();
	if (s.ok()) {
		return nullptr;
	}
	return strdup(s.ToString().c_str());
}

char* ankusa_continue_background(rocksdb_t* db) {
	rocksdb::Status s = db->rep->ContinueBackgroundWork();
	if (s.ok()) {
		return nullptr;
	}
	return strdup(s.ToString().c_str());
}
