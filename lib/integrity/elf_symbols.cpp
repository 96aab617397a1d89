#include "integrity/elf_symbols.hpp"

#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>

namespace kbench {
namespace {

// The file mapped read-only for the duration of one read.
class MappedFile {
 public:
  explicit MappedFile(const std::filesystem::path& file) {
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw std::runtime_error("cannot open " + file.string() + ": " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd, &st) != 0 || st.st_size <= 0) {
      ::close(fd);
      throw std::runtime_error("cannot read " + file.string());
    }
    size_ = static_cast<std::size_t>(st.st_size);
    data_ = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    ::close(fd);
    if (data_ == MAP_FAILED) throw std::runtime_error("cannot map " + file.string());
  }
  ~MappedFile() { ::munmap(data_, size_); }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  [[nodiscard]] std::size_t size() const { return size_; }
  // `count` objects of T at `offset`, bounds-checked.
  template <typename T>
  const T* at(std::uint64_t offset, std::uint64_t count = 1) const {
    if (offset > size_ || count > (size_ - offset) / sizeof(T))
      throw std::runtime_error("truncated ELF file");
    return reinterpret_cast<const T*>(static_cast<const char*>(data_) + offset);
  }

 private:
  void* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace

std::vector<std::string> elf_symbol_names(const std::filesystem::path& file) {
  MappedFile map(file);
  const auto* header = map.at<Elf64_Ehdr>(0);
  if (std::memcmp(header->e_ident, ELFMAG, SELFMAG) != 0 || header->e_ident[EI_CLASS] != ELFCLASS64 ||
      header->e_ident[EI_DATA] != ELFDATA2LSB || header->e_shentsize != sizeof(Elf64_Shdr))
    throw std::runtime_error(file.string() + " is not a 64-bit little-endian ELF file");
  const auto* sections = map.at<Elf64_Shdr>(header->e_shoff, header->e_shnum);
  std::vector<std::string> names;
  for (unsigned i = 0; i < header->e_shnum; ++i) {
    const Elf64_Shdr& table = sections[i];
    if ((table.sh_type != SHT_SYMTAB && table.sh_type != SHT_DYNSYM) || table.sh_entsize != sizeof(Elf64_Sym))
      continue;
    if (table.sh_link >= header->e_shnum) throw std::runtime_error("bad string table link in " + file.string());
    const Elf64_Shdr& strings = sections[table.sh_link];
    const char* text = map.at<char>(strings.sh_offset, strings.sh_size);
    const auto* symbols = map.at<Elf64_Sym>(table.sh_offset, table.sh_size / sizeof(Elf64_Sym));
    for (std::uint64_t s = 0; s < table.sh_size / sizeof(Elf64_Sym); ++s) {
      const std::uint32_t name = symbols[s].st_name;
      if (name == 0 || name >= strings.sh_size) continue;
      // Bounded: a name without its terminator inside the table is cut at the table's end.
      names.emplace_back(text + name, strnlen(text + name, strings.sh_size - name));
    }
  }
  return names;
}

}  // namespace kbench
