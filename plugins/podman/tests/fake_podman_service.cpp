// fake_podman_service.cpp — stands in for `podman system service --time=0 unix://PATH` in the
// unit tests: listens on PATH and waits to be stopped. With --exit N it exits with N instead.
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

int main(int argc, char** argv) {
  if (argc >= 3 && std::strcmp(argv[1], "--exit") == 0) return std::atoi(argv[2]);
  if (argc < 5) return 2;
  std::string path = argv[4];
  if (path.rfind("unix://", 0) == 0) path = path.substr(7);
  sockaddr_un address{};
  if (path.size() >= sizeof(address.sun_path)) return 2;
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      listen(fd, 8) != 0) {
    return 1;
  }
  for (;;) pause();
}
