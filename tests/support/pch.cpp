// The translation unit that compiles the tests' shared precompiled header (tests/CMakeLists.txt).
