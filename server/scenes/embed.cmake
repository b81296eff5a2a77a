# Writes a C++ source holding the text of every scene file given in SCENES, so ligatured
# carries its built-in scenes wherever it runs. Called at build time with
#   cmake -DOUT=file.cc -DSCENES="a.textproto;b.json" -P embed.cmake
set(body "// Generated from server/scenes at build time.\n#include \"server/scene/scene_library.h\"\n\nnamespace ligature {\n\nconst std::vector<EmbeddedScene>& EmbeddedScenes() {\n  static const std::vector<EmbeddedScene> kScenes = {\n")
foreach(path ${SCENES})
  get_filename_component(file ${path} NAME)
  file(READ ${path} text)
  string(APPEND body "      {\"${file}\", R\"ligature_scene(${text})ligature_scene\"},\n")
endforeach()
string(APPEND body "  };\n  return kScenes;\n}\n\n}  // namespace ligature\n")
file(WRITE ${OUT}.tmp "${body}")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different ${OUT}.tmp ${OUT})
