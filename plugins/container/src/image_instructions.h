// image_instructions.h — the text that describes the computer to the model
// (docs/compatibility.md, "Tool description").
//
// The backend only knows what is inside the images it ships or defaults to, so it describes
// those two and answers null for any other image: the user then supplies the text with
// --tool-instruction-override (the host refuses to start without one). Pure; any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace vc::container {

// The images the text is written for.
inline constexpr std::string_view kDebianImage = "debian:bookworm-slim";
inline constexpr std::string_view kDesktopImage = "mcp-virtual-computer-desktop:bookworm";

// The instructions for a computer made from `image`, whose commands run in `shell`, with
// `default_timeout_s` as the default command timeout; nullopt for images not described.
std::optional<std::string> tool_instructions_for(std::string_view image, std::string_view shell,
                                                 std::int64_t default_timeout_s);

}  // namespace vc::container
