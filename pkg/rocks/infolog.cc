// A RocksDB info log that cannot take the process down.
//
// RocksDB's own info log (EnvLogger) writes through a WritableFileWriter. Once
// one of its appends fails (ENOSPC on a full disk), every later append lands in
// WritableFileWriter::AssertFalseAndGetStatusForPrevError, which a RocksDB built
// with assertions (Debian's librocksdb) turns into an abort: the next line logged
// after the disk fills kills the process. The line that does it is RocksDB's own
// report of the failed write (DBImpl::WriteImpl -> IOStatusCheck ->
// ErrorHandler::SetBGError -> HandleKnownErrors -> ROCKS_LOG_INFO), so no caller
// can avoid it. This logger writes the same lines to the same LOG file with
// write(2) and drops a line the file system refuses.

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <memory>
#include <mutex>
#include <string>

#include <rocksdb/env.h>
#include <rocksdb/options.h>

// The C API's options handle is a struct holding the C++ Options (db/c.cc);
// RocksDB's C API has no way to set a custom Logger.
struct rocksdb_options_t {
	rocksdb::Options rep;
};

namespace {

class DroppingLogger : public rocksdb::Logger {
 public:
	explicit DroppingLogger(std::string path)
	    : rocksdb::Logger(rocksdb::InfoLogLevel::INFO_LEVEL), path_(std::move(path)) {}
	~DroppingLogger() override { closeFd(); }

	using rocksdb::Logger::Logv;
	void Logv(const char* format, va_list ap) override {
		char buf[8192];
		struct timeval tv;
		gettimeofday(&tv, nullptr);
		struct tm t;
		time_t secs = tv.tv_sec;
		localtime_r(&secs, &t);
		int n = snprintf(buf, sizeof buf, "%04d/%02d/%02d-%02d:%02d:%02d.%06d %ld ",
		                 t.tm_year + 1900, t.tm_mon + 1, t.tm_mday, t.tm_hour, t.tm_min,
		                 t.tm_sec, static_cast<int>(tv.tv_usec), static_cast<long>(syscall(SYS_gettid)));
		if (n < 0 || n >= static_cast<int>(sizeof buf)) return;
		va_list cp;
		va_copy(cp, ap);
		int m = vsnprintf(buf + n, sizeof buf - n, format, cp);
		va_end(cp);
		if (m < 0) return;
		size_t len = n + m;
		if (len > sizeof buf - 2) len = sizeof buf - 2;
		if (buf[len - 1] != '\n') buf[len++] = '\n';
		std::lock_guard<std::mutex> g(mu_);
		if (fd_ < 0) {
			// Opened at the first line, not before: by then RocksDB holds the store's LOCK.
			fd_ = open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
			if (fd_ < 0) return;
		}
		// A short or failed write (a full disk) drops the line; nothing else depends on it.
		ssize_t w = write(fd_, buf, len);
		(void)w;
	}

 protected:
	rocksdb::Status CloseImpl() override {
		closeFd();
		return rocksdb::Status::OK();
	}

 private:
	void closeFd() {
		std::lock_guard<std::mutex> g(mu_);
		if (fd_ >= 0) {
			::close(fd_);
			fd_ = -1;
		}
	}

	std::string path_;
	std::mutex mu_;
	int fd_ = -1;
};

}  // namespace

extern "C" void ankusa_set_dropping_info_log(rocksdb_options_t* opts, const char* path) {
	opts->rep.info_log = std::make_shared<DroppingLogger>(path);
}
