// A bound of what a family holds, read without a pass over its table files' keys.

#include <stdlib.h>
#include <string.h>

#include <memory>
#include <vector>

#include <rocksdb/db.h>
#include <rocksdb/iterator.h>
#include <rocksdb/options.h>
#include <rocksdb/table_properties.h>

#include "chandles.h"
#include "tablerows.h"

char* ankusa_table_rows(rocksdb_t* db, rocksdb_column_family_handle_t* cf, int n,
                        const char* const* starts, const size_t* start_lens,
                        const char* const* limits, const size_t* limit_lens, uint64_t* out) {
	for (int i = 0; i < 5; i++) {
		out[i] = 0;
	}
	std::vector<rocksdb::Range> ranges;
	for (int i = 0; i < n; i++) {
		ranges.emplace_back(rocksdb::Slice(starts[i], start_lens[i]), rocksdb::Slice(limits[i], limit_lens[i]));
	}
	// The files' properties are written once with each file: what RocksDB keeps of them
	// for its open files, or reads from each file's properties block. A file that reaches
	// into a range is counted whole, its keys outside the range too.
	rocksdb::TablePropertiesCollection props;
	rocksdb::Status s = n == 0 ? db->rep->GetPropertiesOfAllTables(cf->rep, &props)
	                           : db->rep->GetPropertiesOfTablesInRange(cf->rep, ranges.data(), ranges.size(), &props);
	if (!s.ok()) {
		return strdup(s.ToString().c_str());
	}
	for (const auto& p : props) {
		out[0] += p.second->num_entries;
		out[1] += p.second->num_deletions;
		out[2] += p.second->raw_key_size;
		out[3] += p.second->raw_value_size;
		out[4] += p.second->num_range_deletions;
	}
	// The memtables (a WAL replayed at the open, a node stopped without a flush) have no
	// such figures: their keys in the ranges are read, a write buffer's worth at most. The
	// memtable tier's iterator hides what a newer entry in the memtables deletes or
	// overwrites, and nothing below it: a key of both a memtable and a file is counted in each.
	rocksdb::ReadOptions ro;
	ro.read_tier = rocksdb::kMemtableTier;
	ro.fill_cache = false;
	std::unique_ptr<rocksdb::Iterator> it(db->rep->NewIterator(ro, cf->rep));
	auto count = [&](const rocksdb::Slice* limit) {
		for (; it->Valid() && (limit == nullptr || it->key().compare(*limit) < 0); it->Next()) {
			out[0]++;
			out[2] += it->key().size() + 8;
			out[3] += it->value().size();
		}
	};
	if (n == 0) {
		it->SeekToFirst();
		count(nullptr);
	}
	for (const auto& r : ranges) {
		it->Seek(r.start);
		count(&r.limit);
	}
	s = it->status();
	if (!s.ok()) {
		return strdup(s.ToString().c_str());
	}
	return nullptr;
}
