; PSEBench Studio: the Windows installer, compiled on Linux with Debian's makensis by
; scripts/build-windows (which passes the defines below). It installs for the current user only,
; into %LOCALAPPDATA%\Programs\PSEBench Studio, so no administrator rights are needed (hospital
; laptops rarely grant them). The uninstaller removes the program and its Start-menu entries and
; keeps the user's data folder (%APPDATA%\psebench) and stored API keys.
;
; Defines:
;   VERSION    the app's version as shown ("0.1.0")
;   VIVERSION  the same as four numbers for the file properties ("0.1.0.0")
;   STAGE      folder holding psebench-studio.exe, psebench.exe, WebView2Loader.dll, icon.ico and
;              README.txt
;   OUTFILE    the installer to write

Unicode true
ManifestDPIAware true
SetCompressor /SOLID lzma
RequestExecutionLevel user

!ifndef VERSION | VIVERSION | STAGE | OUTFILE
  !error "Compile through scripts/build-windows (it defines VERSION, VIVERSION, STAGE and OUTFILE)."
!endif

!define PRODUCT "PSEBench Studio"
!define APPEXE "psebench-studio.exe"
!define CLIEXE "psebench.exe"
!define UNINSTEXE "Uninstall PSEBench Studio.exe"
!define UNINST_KEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\PSEBenchStudio"
; The Evergreen WebView2 Runtime's client id (Microsoft's documented registry check).
!define WEBVIEW2_CLIENT "{F3017226-FE2A-4295-8BDF-00C3A9A7E4C5}"
!define WEBVIEW2_URL "https://developer.microsoft.com/microsoft-edge/webview2/"

Name "${PRODUCT}"
OutFile "${OUTFILE}"
InstallDir "$LOCALAPPDATA\Programs\${PRODUCT}"
InstallDirRegKey HKCU "${UNINST_KEY}" "InstallLocation"
BrandingText "${PRODUCT} ${VERSION}"
ShowInstDetails show
ShowUninstDetails show

!include MUI2.nsh
!include LogicLib.nsh
!include FileFunc.nsh

Var WebView2Note

!define MUI_ICON "${STAGE}\icon.ico"
!define MUI_UNICON "${STAGE}\icon.ico"
!define MUI_ABORTWARNING

!define MUI_WELCOMEPAGE_TITLE "Install ${PRODUCT} ${VERSION}"
!define MUI_WELCOMEPAGE_TEXT "${PRODUCT} builds, checks and runs patient-safety triage benchmarks on this computer.$\r$\n$\r$\nIt is installed for you only (no administrator rights needed), with a Start-menu entry for the app and one for its command-line tool, psebench.$\r$\n$\r$\nThe app needs Microsoft Edge WebView2 Runtime to show its window. Windows 11 includes it; on Windows 10 it may have to be installed (this installer checks and tells you).$\r$\n$\r$\nIf ${PRODUCT} is open, close it before you continue."
!insertmacro MUI_PAGE_WELCOME
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!define MUI_FINISHPAGE_TITLE "${PRODUCT} is installed"
!define MUI_FINISHPAGE_TEXT "Start it from the Start menu: ${PRODUCT}.$\r$\n$\r$\nYour work is kept in $APPDATA\psebench.$WebView2Note"
!define MUI_FINISHPAGE_RUN "$INSTDIR\${APPEXE}"
!define MUI_FINISHPAGE_RUN_TEXT "Open ${PRODUCT} now"
!insertmacro MUI_PAGE_FINISH

!define MUI_UNCONFIRMPAGE_TEXT_TOP "This removes the ${PRODUCT} program and its Start-menu entries.$\r$\n$\r$\nYour data is kept: policies, cards, cases, runs, reviews and settings stay in $APPDATA\psebench, and API keys you stored stay in Windows Credential Manager. Installing ${PRODUCT} again finds them. To remove your data as well, delete that folder yourself after uninstalling."
!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_INSTFILES

!insertmacro MUI_LANGUAGE "English"

VIProductVersion "${VIVERSION}"
VIAddVersionKey /LANG=${LANG_ENGLISH} "ProductName" "${PRODUCT}"
VIAddVersionKey /LANG=${LANG_ENGLISH} "ProductVersion" "${VERSION}"
VIAddVersionKey /LANG=${LANG_ENGLISH} "FileVersion" "${VERSION}"
VIAddVersionKey /LANG=${LANG_ENGLISH} "FileDescription" "${PRODUCT} installer"
VIAddVersionKey /LANG=${LANG_ENGLISH} "CompanyName" "PSEBench Studio team"
VIAddVersionKey /LANG=${LANG_ENGLISH} "LegalCopyright" "PSEBench Studio team, Apache-2.0"

; Pushes "1" when the Evergreen WebView2 Runtime is installed for the machine or for this user
; (its "pv" version value is present and not 0.0.0.0), else "0". The installer is a 32-bit
; program, so the machine-wide key is read where Microsoft puts it for 64-bit Windows
; (WOW6432Node) without naming that folder.
Function HasWebView2
  Push $0
  ReadRegStr $0 HKLM "SOFTWARE\Microsoft\EdgeUpdate\Clients\${WEBVIEW2_CLIENT}" "pv"
  ${If} $0 == ""
  ${OrIf} $0 == "0.0.0.0"
    ReadRegStr $0 HKCU "Software\Microsoft\EdgeUpdate\Clients\${WEBVIEW2_CLIENT}" "pv"
  ${EndIf}
  ${If} $0 == ""
  ${OrIf} $0 == "0.0.0.0"
    StrCpy $0 "0"
  ${Else}
    StrCpy $0 "1"
  ${EndIf}
  Exch $0
FunctionEnd

Section "${PRODUCT}" SecMain
  SectionIn RO
  SetShellVarContext current
  SetOutPath "$INSTDIR"
  File "${STAGE}\${APPEXE}"
  File "${STAGE}\${CLIEXE}"
  File "${STAGE}\WebView2Loader.dll"
  File "${STAGE}\icon.ico"
  File "${STAGE}\README.txt"
  WriteUninstaller "$INSTDIR\${UNINSTEXE}"

  CreateShortCut "$SMPROGRAMS\${PRODUCT}.lnk" "$INSTDIR\${APPEXE}" "" "$INSTDIR\icon.ico" 0
  ; A console window where `psebench` works without typing its folder (PATH is set for that
  ; window only; the user's PATH is not changed).
  CreateShortCut "$SMPROGRAMS\${PRODUCT} command line.lnk" "$SYSDIR\cmd.exe" '/k "title PSEBench command line & set "PATH=$INSTDIR;%PATH%" & echo Type psebench --help to see the commands."' "$INSTDIR\icon.ico" 0

  WriteRegStr HKCU "${UNINST_KEY}" "DisplayName" "${PRODUCT}"
  WriteRegStr HKCU "${UNINST_KEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKCU "${UNINST_KEY}" "Publisher" "PSEBench Studio team"
  WriteRegStr HKCU "${UNINST_KEY}" "DisplayIcon" "$INSTDIR\icon.ico"
  WriteRegStr HKCU "${UNINST_KEY}" "InstallLocation" "$INSTDIR"
  WriteRegStr HKCU "${UNINST_KEY}" "UninstallString" '"$INSTDIR\${UNINSTEXE}"'
  WriteRegStr HKCU "${UNINST_KEY}" "QuietUninstallString" '"$INSTDIR\${UNINSTEXE}" /S'
  WriteRegDWORD HKCU "${UNINST_KEY}" "NoModify" 1
  WriteRegDWORD HKCU "${UNINST_KEY}" "NoRepair" 1
  ${GetSize} "$INSTDIR" "/S=0K" $0 $1 $2
  WriteRegDWORD HKCU "${UNINST_KEY}" "EstimatedSize" $0

  Call HasWebView2
  Pop $0
  ${If} $0 == "1"
    DetailPrint "Microsoft Edge WebView2 Runtime is installed."
    StrCpy $WebView2Note ""
  ${Else}
    DetailPrint "Microsoft Edge WebView2 Runtime was not found."
    StrCpy $WebView2Note "$\r$\n$\r$\nBefore the first start, install Microsoft Edge WebView2 Runtime (free, from Microsoft): ${WEBVIEW2_URL}"
    MessageBox MB_OK|MB_ICONINFORMATION "${PRODUCT} needs Microsoft Edge WebView2 Runtime to show its window, and it was not found on this computer.$\r$\n$\r$\nInstall the Evergreen WebView2 Runtime from Microsoft (free), or ask your IT department to:$\r$\n${WEBVIEW2_URL}$\r$\n$\r$\nThe installation of ${PRODUCT} continues; the command-line tool psebench works without it." /SD IDOK
  ${EndIf}
SectionEnd

Section "Uninstall"
  SetShellVarContext current
  Delete "$SMPROGRAMS\${PRODUCT}.lnk"
  Delete "$SMPROGRAMS\${PRODUCT} command line.lnk"
  ; Only the files this installer put there; the folder goes only if nothing else is left in it.
  Delete "$INSTDIR\${APPEXE}"
  Delete "$INSTDIR\${CLIEXE}"
  Delete "$INSTDIR\WebView2Loader.dll"
  Delete "$INSTDIR\icon.ico"
  Delete "$INSTDIR\README.txt"
  Delete "$INSTDIR\${UNINSTEXE}"
  RMDir "$INSTDIR"
  DeleteRegKey HKCU "${UNINST_KEY}"
  DetailPrint "Your data was kept in $APPDATA\psebench."
SectionEnd
